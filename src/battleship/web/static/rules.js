// Choosing the rules on a page: every preset, or custom rules from a small form or a TOML document
// (the format `battleship rules --toml` writes). Shared by the game, the game between friends and the
// calculator. The choice is remembered in this browser.
"use strict";

const RULES_FORM = `
<details class="custom" id="custom-box">
  <summary>Custom rules</summary>
  <div class="grid">
    <label>Rows <input type="number" id="c-rows" min="3" max="15" value="8"></label>
    <label>Columns <input type="number" id="c-cols" min="3" max="15" value="8"></label>
    <label>Spacing <select id="c-spacing"><option value="touch">ships may touch</option><option value="no-edge">no shared edge</option><option value="no-contact">no contact, corners too</option></select></label>
    <label>Sinkings <select id="c-sinks"><option value="named">named ("you sank my Cruiser")</option><option value="sunk">announced, unnamed</option><option value="revealed">named and shown</option><option value="none">never announced</option></select></label>
    <label><span><input type="checkbox" id="c-reflections"> mirror images allowed</span></label>
  </div>
  <label class="hint" for="c-ships">Ships, one a line: name, letter, then a length or a shape (rows of # and . joined by /)</label>
  <textarea id="c-ships" rows="4">Cruiser C 3
Destroyer D 2
Tee T ###/.#.</textarea>
  <label class="hint" for="c-toml">The rules as TOML (made from the form; edit it directly if you like)</label>
  <textarea id="c-toml" rows="8" spellcheck="false"></textarea>
  <div class="message" id="c-message" role="status"></div>
</details>`;

// A rules chooser: a <select> of presets plus "custom", and the custom form. ``onChange(rules, toml)``
// is called with the rules as the API describes them (for custom rules: null until the server has
// read them) and the TOML (custom only).
class RulesChooser {
  constructor(select, holder, catalogue, onChange, storageKey) {
    this.select = select; this.catalogue = catalogue; this.onChange = onChange; this.key = storageKey;
    holder.insertAdjacentHTML("beforeend", RULES_FORM);
    for (const r of catalogue.rules) select.add(new Option(`${r.name} (${r.rows}x${r.cols})`, r.name));
    select.add(new Option("custom (below)", "custom"));
    const saved = JSON.parse(localStorage.getItem(this.key) || "{}");
    if (saved.form) for (const [id, value] of Object.entries(saved.form)) this.setField(id, value);
    $("c-toml").value = saved.toml || this.fromForm();
    select.value = catalogue.rules.some((r) => r.name === saved.rules) || saved.rules === "custom" ? saved.rules : "standard";
    $("custom-box").classList.toggle("hidden", select.value !== "custom");
    $("custom-box").open = select.value === "custom";
    this.last = JSON.stringify([select.value, this.toml]);  // the page draws these rules first
    select.addEventListener("change", () => this.changed());
    for (const id of ["c-rows", "c-cols", "c-spacing", "c-sinks", "c-reflections", "c-ships"]) {
      $(id).addEventListener("change", () => { $("c-toml").value = this.fromForm(); this.changed(); });
    }
    $("c-toml").addEventListener("change", () => this.changed());
  }

  setField(id, value) { const el = $(id); if (!el) return; if (el.type === "checkbox") el.checked = value; else el.value = value; }

  get custom() { return this.select.value === "custom"; }
  get toml() { return this.custom ? $("c-toml").value : null; }
  get preset() { return this.catalogue.rules.find((r) => r.name === this.select.value) || null; }
  body() { return this.custom ? {rules_toml: this.toml} : {rules: this.select.value}; }

  changed() {
    $("custom-box").classList.toggle("hidden", !this.custom);
    if (this.custom) $("custom-box").open = true;
    const form = {};
    for (const id of ["c-rows", "c-cols", "c-spacing", "c-sinks", "c-ships"]) form[id] = $(id).value;
    form["c-reflections"] = $("c-reflections").checked;
    localStorage.setItem(this.key, JSON.stringify({rules: this.select.value, toml: $("c-toml").value, form}));
    const now = JSON.stringify([this.select.value, this.toml]);
    if (now === this.last) return;  // a field left without a change: nothing to redo
    this.last = now;
    this.onChange(this.preset, this.toml);
  }

  say(text) { $("c-message").textContent = text; }

  // The form as TOML; a line it cannot read is reported and left out.
  fromForm() {
    const lines = [`rows = ${Number($("c-rows").value) || 8}`, `cols = ${Number($("c-cols").value) || 8}`,
      `spacing = "${$("c-spacing").value}"`, `sinks = "${$("c-sinks").value}"`, `reflections = ${$("c-reflections").checked}`];
    const problems = [];
    $("c-ships").value.split("\n").map((l) => l.trim()).filter(Boolean).forEach((line, k) => {
      const m = line.match(/^(.+?)\s+([A-Z])\s+(\d+|[#./]+)$/);
      if (!m) { problems.push(`line ${k + 1}: expected a name, a capital letter, then a length or a shape like ###/.#.`); return; }
      const what = /^\d+$/.test(m[3]) ? `length = ${m[3]}` : `shape = "${m[3]}"`;
      lines.push("", "[[ship]]", `name = ${JSON.stringify(m[1])}`, `symbol = "${m[2]}"`, what);
    });
    if ($("c-message")) $("c-message").textContent = problems.join("; ");
    return lines.join("\n") + "\n";
  }
}
