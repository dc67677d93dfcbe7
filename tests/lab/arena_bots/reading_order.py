"""A Shooter class the arena's Python host serves: the next cell in reading order (salvos of them)."""


class ReadingOrder:
    name = "reading order (class)"

    def reset(self, rules, rng):
        self.cells = rules.cells

    def next_shot(self, observation):
        return next(c for c in range(self.cells) if not observation.is_shot(c))
