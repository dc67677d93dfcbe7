"""Counts said in words: ``1 shot``, ``2 shots``, ``1,000 games``.

Every message and repr that counts something says it through :func:`counted`, so that no count of
one reads "1 shots".
"""

from __future__ import annotations


def counted(n: int | float, noun: str, plural: str | None = None) -> str:
    """``n`` and the noun, singular for exactly one; whole numbers with thousands separators.

    Parameters
    ----------
    n : int or float
        The count.
    noun : str
        The noun for one (``"shot"``).
    plural : str, optional
        The noun for any other count, when it is not the noun and an ``s`` (``"salvoes"``).

    Returns
    -------
    str
        The count and the noun, ``"1 shot"``, ``"1,000 shots"``.

    Examples
    --------
    >>> counted(1, "shot"), counted(0, "shot"), counted(20_000, "game")
    ('1 shot', '0 shots', '20,000 games')
    >>> counted(2, "ship", "ships afloat")
    '2 ships afloat'
    """
    word = noun if n == 1 else (plural or f"{noun}s")
    number = f"{n:,}" if isinstance(n, int) else f"{n:g}"
    return f"{number} {word}"
