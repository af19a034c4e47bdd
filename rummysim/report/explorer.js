// The rules atlas explorer (rummysim/report/explorer.py): pick a cell, compare two, sort and filter every cell.
// `numberText`, `estimateText`, `changePhrase`, `differenceOf`, `pairingText` and `cellName` are the twins of
// explorer.py's `number_text`, `estimate_text`, `change_phrase`, `difference_of`, `pairing_text` and `cell_name`:
// change one, change the other (the tests hold every text on the page to the Python's).
// Every text from the data is set as text (textContent, option text, attributes): none is parsed as HTML.
"use strict";
(() => {
  const data = JSON.parse(document.getElementById("atlas-data").textContent);
  const { factors, levels, words, measures, reference } = data;
  const keys = ["players", ...factors]; // what names a cell
  const sizes = [...new Set(data.cells.map((c) => c.players))].sort((x, y) => x - y);
  const choices = { players: sizes.map(String), ...levels };
  const cells = data.cells.map((c) => ({ ...c, settings: { players: String(c.players), ...c.settings } }));
  const byId = new Map(cells.map((c) => [c.cell, c]));
  const perSize = new Map(sizes.map((p) => [p, cells.filter((c) => c.players === p).length]));
  const UNITS = { pp: [100, " pp"], hands: [1, " hands"], "": [1, ""] };
  const PARTS = ["value", "low", "high", "change", "change_low", "change_high"]; // explorer.py's COLUMNS
  const finite = (x) => typeof x === "number" && Number.isFinite(x);
  const $ = (selector) => document.querySelector(selector);

  // One element with attributes and children (strings become text nodes: never HTML)
  function el(tag, attributes = {}, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) {
      if (value !== null && value !== undefined && value !== false) node.setAttribute(name, String(value));
    }
    for (const child of children.flat()) {
      if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }

  function fixed(x, digits) {
    // toFixed rounds a number exactly half-way (0.125 to 2 decimals) away from zero, Python's format to even:
    // toFixed(100) writes a double's exact decimals, so a half-way one ends in a 5 just past `digits`
    const text = x.toFixed(digits);
    const exact = x.toFixed(100).replace(/0+$/, "");
    if (!exact.endsWith("5") || exact.length - exact.indexOf(".") !== digits + 2) return text;
    const down = exact.slice(0, -1).replace(/\.$/, "");
    return "02468".includes(down.slice(-1)) ? down : text;
  }

  function numberText(x, digits, signed) {
    const text = fixed(Math.abs(x), digits);
    return (x < 0 && /[1-9]/.test(text) ? "-" : signed ? "+" : "") + text;
  }

  function estimateText(value, low, high, measure, signed) {
    if (!finite(value)) return "n/a";
    const [scale, unit] = UNITS[measure.unit];
    const shown = (x) => numberText(x * scale, measure.digits, signed);
    const interval = finite(low) && finite(high) && low !== high ? ` [${shown(low)}, ${shown(high)}]` : "";
    return (value === 0 && !interval ? "0" : shown(value)) + unit + interval; // an exact zero is 0, never +0.00
  }

  function hint(low, high, measure, base) {
    if (measure.better === "low" || measure.better === "high") {
      return (high < 0) === (measure.better === "low") ? " (better)" : " (worse)";
    }
    if (measure.better !== "zero" || !finite(base)) return "";
    const [near, far] = [0, -2 * base].sort((x, y) => x - y); // |base + d| < |base| strictly between them
    if (near < low && high < far) return " (better)";
    return high < near || low > far ? " (worse)" : "";
  }

  function changePhrase(change, low, high, measure, base = NaN, against = reference) {
    if (!finite(change)) return "not measured";
    if (finite(low) && finite(high) && low === high) {
      return change === 0 ? `the same in every game as ${against}` : "no interval";
    }
    if (!finite(low) || !finite(high)) {
      return change === 0 && against === reference ? `this is ${against}, the reference` : "no interval";
    }
    const way = low > 0 ? "higher" : high < 0 ? "lower" : "";
    if (!way) return "no change shown: the interval includes zero";
    return `${way} than ${against}${hint(low, high, measure, base)}: the interval excludes zero`;
  }

  const numbers = (cell, measure) => {
    const n = cell.numbers[measure.name];
    return Object.fromEntries(PARTS.map((part, i) => [part, n[i] ?? NaN]));
  };
  const value = (cell, m) => { const n = numbers(cell, m); return estimateText(n.value, n.low, n.high, m, false); };
  const change = (cell, m) => {
    const n = numbers(cell, m);
    return estimateText(n.change, n.change_low, n.change_high, m, true);
  };
  const phrase = (cell, m) => {
    const n = numbers(cell, m);
    return changePhrase(n.change, n.change_low, n.change_high, m, n.value - n.change);
  };
  const isReference = (cell) => factors.every((f) => cell.settings[f] === levels[f][0]);

  function differenceOf(a, b, measure) {
    // B − A with its interval and how it was found: paired within a table size, else unpaired (the page says so)
    const x = numbers(a, measure), y = numbers(b, measure);
    if (a.cell === b.cell) return [finite(x.value) ? 0 : NaN, NaN, NaN, "same"];
    if (a.players === b.players) {
      if (isReference(a)) return [y.change, y.change_low, y.change_high, "paired"];
      if (isReference(b)) return [-x.change, -x.change_high, -x.change_low, "paired"];
      const flat = (data.pairs[measure.name] || {})[String(a.players)];
      if (flat) {
        const [i, j] = [a.index, b.index].sort((p, q) => p - q);
        const n = perSize.get(a.players);
        const k = 3 * (i * (2 * n - i - 1) / 2 + (j - i - 1));
        const [d, low, high] = flat.slice(k, k + 3).map((v) => v ?? NaN);
        if (finite(d)) return a.index < b.index ? [d, low, high, "paired"] : [-d, -high, -low, "paired"];
      }
    }
    const d = y.value - x.value;
    const hx = (x.high - x.low) / 2, hy = (y.high - y.low) / 2;
    const hw = Math.sqrt(hx * hx + hy * hy);
    return [d, d - hw, d + hw, a.players !== b.players ? "sizes" : "unpaired"];
  }

  function pairingText(how, level, players) {
    return {
      paired: `paired (the same deals), at ${level} as every change`,
      same: "A and B are the same cell",
      unpaired: "unpaired: no paired interval for these two cells; 95%, as if independent (wider)",
      sizes: `unpaired: ${players[0]} and ${players[1]} players are dealt different cards; 95%, as if independent`,
    }[how];
  }

  const ruleSet = (cell) => {
    const said = factors.filter((f) => cell.settings[f] !== levels[f][0]).map((f) => words[f][cell.settings[f]]);
    return said.length ? said.join(", ") : reference;
  };
  const cellName = (cell) => `${cell.players} players: ${ruleSet(cell)}`;
  const find = (settings) => cells.find((c) => keys.every((k) => c.settings[k] === settings[k]));
  const keyLabel = (key) => (key === "players" ? "table size" : key.replace(/_/g, " "));
  const optionText = (key, option) =>
    option === "" ? "any" : key === "players" ? `${option} players` : words[key][option];

  // The selectors: `data-pick` a or b, `data-key` players or a factor; the filters: `data-filter` the same keys
  function selector(key, attributes, options) {
    const select = el("select", { ...attributes, "data-key": key },
      options.map((o) => el("option", { value: o }, optionText(key, o))));
    return el("label", {}, el("span", {}, keyLabel(key)), select);
  }
  for (const which of ["a", "b"]) {
    const picker = $(`.picker[data-picker="${which}"]`);
    picker.prepend(...keys.map((k) => selector(k, { "data-pick": which }, choices[k])));
  }
  $(".filters").replaceChildren(...keys.map((k) => selector(k, { "data-filter": "" }, ["", ...choices[k]])));

  const selects = (which) => [...document.querySelectorAll(`select[data-pick="${which}"]`)];
  const picked = (which) => find(Object.fromEntries(selects(which).map((s) => [s.dataset.key, s.value])));
  const show = (which, cell) => selects(which).forEach((s) => { s.value = cell.settings[s.dataset.key]; });

  function card(measure, lines) {
    const rows = lines.map(([what, part, text, extra = ""]) =>
      el("p", { class: `line ${extra}`.trim() }, el("span", { class: "what" }, what), " ",
        el("span", { class: "figure", "data-measure": measure.name, "data-part": part }, text)));
    return el("article", { class: "card", "data-measure": measure.name }, el("h3", {}, measure.label), rows);
  }
  const missing = () => el("p", { class: "missing" }, "No cell has these settings.");

  function renderPicks() {
    const a = picked("a"), b = picked("b");
    $("#a-name").textContent = a ? cellName(a) : "";
    $("#a-name").dataset.cell = a ? a.cell : "";
    $("#cell-a").replaceChildren(...(!a ? [missing()] : measures.map((m) => card(m, [
      ["Value", "value", value(a, m)],
      [`Change against ${reference} at ${a.players} players`, "change", change(a, m)],
      ["", "phrase", phrase(a, m), /excludes/.test(phrase(a, m)) ? "clear" : ""],
    ]))));
    $("#b-name").textContent = b ? cellName(b) : "";
    $("#b-name").dataset.cell = b ? b.cell : "";
    $("#compare").replaceChildren(...(!a || !b ? [missing()] : measures.map((m) => {
      const [d, low, high, how] = differenceOf(a, b, m);
      const said = changePhrase(d, low, high, m, numbers(a, m).value, "A");
      return card(m, [
        ["A", "a", value(a, m)], ["B", "b", value(b, m)],
        ["B − A", "difference", estimateText(d, low, high, m, true)],
        ["", "phrase", said, /excludes/.test(said) ? "clear" : ""],
        ["", "pairing", pairingText(how, m.levelText, [a.players, b.players]), `how ${how}`],
      ]);
    })));
    const hash = [["a", a], ["b", b]].filter(([, c]) => c).map(([w, c]) => `${w}=${encodeURIComponent(c.cell)}`);
    const address = hash.length ? `#${hash.join("&")}` : location.pathname + location.search;
    try {
      if (location.hash !== (hash.length ? address : "")) history.replaceState(null, "", address);
    } catch (error) {} // a browser that keeps a page's address read-only still shows the cells
    document.querySelectorAll("#cells tbody tr").forEach((tr) => {
      tr.classList.toggle("is-a", tr.dataset.cell === a?.cell);
      tr.classList.toggle("is-b", tr.dataset.cell === b?.cell);
    });
  }

  function readHash() {
    const asked = new URLSearchParams(location.hash.slice(1));
    for (const which of ["a", "b"]) if (byId.has(asked.get(which))) show(which, byId.get(asked.get(which)));
  }

  // The table of every cell: the table size, the rule set in words, then each measure's value and change
  const columns = [
    { key: "players", label: "table size", text: (c) => String(c.players), order: (c) => c.players },
    { key: "rules", label: "rules", text: ruleSet,
      order: (c) => factors.reduce((at, f) => at * levels[f].length + levels[f].indexOf(c.settings[f]), 0) },
    ...measures.flatMap((m) => [
      { key: `${m.name}.value`, label: m.label, measure: m, part: "value", text: (c) => value(c, m),
        order: (c) => numbers(c, m).value },
      { key: `${m.name}.change`, label: `${m.label}: change`, measure: m, part: "change", text: (c) => change(c, m),
        order: (c) => numbers(c, m).change },
    ]),
  ];
  const sorting = { key: null, down: false };

  function compare(x, y) {
    // a missing number sorts last whichever the direction
    if (!finite(x) || !finite(y)) return finite(x) === finite(y) ? 0 : finite(x) ? -1 : 1;
    return sorting.down ? y - x : x - y;
  }

  function withInterval(text) {
    // "value [low, high]": the interval in a span of its own, muted
    const found = /^(.*) (\[[^\]]*\])$/.exec(text);
    return found ? [found[1], " ", el("span", { class: "ci" }, found[2])] : [text];
  }

  function renderTable() {
    const heads = columns.map((col) => {
      const sort = sorting.key === col.key ? (sorting.down ? "descending" : "ascending") : null;
      return el("th", { class: col.measure ? "number" : "setting", "aria-sort": sort },
        el("button", { type: "button", "data-sort": col.key }, col.label));
    });
    $("#cells thead").replaceChildren(el("tr", {}, el("th", {}, "show as"), heads));
    const filters = [...document.querySelectorAll("select[data-filter]")].filter((s) => s.value !== "");
    let rows = cells.filter((c) => filters.every((s) => c.settings[s.dataset.key] === s.value));
    const col = columns.find((c) => c.key === sorting.key);
    if (col) rows = [...rows].sort((p, q) => compare(col.order(p), col.order(q)));
    $("#cells tbody").replaceChildren(...rows.map((c) => {
      const tds = columns.map((col) => col.measure
        ? el("td", { "data-measure": col.measure.name, "data-part": col.part }, withInterval(col.text(c)))
        : el("td", { class: "setting" }, col.text(c)));
      const pick = el("td", { class: "show" },
        el("button", { type: "button", "data-show": "a", title: "Show as cell A" }, "A"),
        el("button", { type: "button", "data-show": "b", title: "Show as cell B" }, "B"));
      return el("tr", { "data-cell": c.cell, title: cellName(c) }, pick, tds);
    }));
    $("#count").textContent = `${rows.length} of ${cells.length} cells shown`;
    $("#count").dataset.shown = rows.length;
    renderPicks();
  }

  document.addEventListener("change", (event) => {
    if (event.target.matches("select[data-pick]")) renderPicks();
    if (event.target.matches("select[data-filter]")) renderTable();
  });
  $("#cells thead").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-sort]");
    if (!button) return;
    sorting.down = sorting.key === button.dataset.sort ? !sorting.down : false;
    sorting.key = button.dataset.sort;
    renderTable();
  });
  $("#cells tbody").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-show]");
    if (!button) return;
    const which = button.dataset.show;
    show(which, byId.get(button.closest("tr").dataset.cell));
    renderPicks();
    $(which === "a" ? "#pick" : "#versus").scrollIntoView({ behavior: "smooth" });
  });
  $("#swap").addEventListener("click", () => {
    const a = picked("a"), b = picked("b");
    if (a && b) { show("a", b); show("b", a); renderPicks(); }
  });
  window.addEventListener("hashchange", () => { readHash(); renderPicks(); });

  // By default A is basic rummy at the smallest table, B the same with the first factor's next level
  const basic = Object.fromEntries(factors.map((f) => [f, levels[f][0]]));
  const a = find({ players: String(sizes[0]), ...basic }) ?? cells[0];
  const next = factors.length ? { [factors[0]]: levels[factors[0]][1] ?? levels[factors[0]][0] } : {};
  show("a", a);
  show("b", find({ ...a.settings, ...next }) ?? cells[1] ?? a);
  readHash();
  renderTable();
})();
