// The rules atlas explorer (rummysim/report/explorer.py): pick a cell, compare two, sort and filter every cell.
// `numberText`, `estimateText` and `changePhrase` are the twins of explorer.py's functions of the same names:
// change one, change the other (the tests hold every number on the page to the Python's).
"use strict";
(() => {
  const data = JSON.parse(document.getElementById("atlas-data").textContent);
  const { factors, levels, measures, reference } = data;
  const keys = ["players", ...factors]; // what names a cell
  const sizes = [...new Set(data.cells.map((c) => c.players))].sort((x, y) => x - y);
  const choices = { players: sizes.map(String), ...levels };
  const cells = data.cells.map((c) => ({ ...c, settings: { players: String(c.players), ...c.settings } }));
  const byId = new Map(cells.map((c) => [c.cell, c]));
  const UNITS = { pp: [100, " pp"], hands: [1, " hands"], "": [1, ""] };
  const PARTS = ["value", "low", "high", "change", "change_low", "change_high"]; // explorer.py's COLUMNS
  const finite = (x) => typeof x === "number" && Number.isFinite(x);
  const escape = (text) =>
    String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  const $ = (selector) => document.querySelector(selector);

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
    const interval = finite(low) && finite(high) ? ` [${shown(low)}, ${shown(high)}]` : "";
    return shown(value) + unit + interval;
  }

  function changePhrase(change, low, high, measure) {
    if (!finite(change)) return "not measured";
    if (!finite(low) || !finite(high)) return change === 0 ? `this is ${reference}, the reference` : "no interval";
    const way = low > 0 ? "higher" : high < 0 ? "lower" : "";
    if (!way) return "no change shown: the interval includes zero";
    const hint = !measure.better ? "" : (way === "lower") === (measure.better === "low") ? " (better)" : " (worse)";
    return `${way} than ${reference}${hint}: the interval excludes zero`;
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
  const phrase = (cell, m) => { const n = numbers(cell, m); return changePhrase(n.change, n.change_low, n.change_high, m); };

  function difference(a, b, measure) {
    // B − A, its interval from the half-widths as if the cells were independent (the page says so)
    const x = numbers(a, measure), y = numbers(b, measure);
    const d = y.value - x.value;
    const hx = (x.high - x.low) / 2, hy = (y.high - y.low) / 2;
    const hw = Math.sqrt(hx * hx + hy * hy);
    return estimateText(d, d - hw, d + hw, measure, true);
  }

  const nameOf = (cell) =>
    `${cell.players} players, ` + factors.map((f) => `${f} ${cell.settings[f]}`).join(", ");
  const find = (settings) => cells.find((c) => keys.every((k) => c.settings[k] === settings[k]));

  // The selectors: `data-pick` a or b, `data-key` players or a factor; the filters: `data-filter` the same keys
  function selector(key, attributes, options) {
    const label = key === "players" ? "table size" : key;
    const shown = options.map((o) => `<option value="${escape(o)}">${escape(o === "" ? "any" : o)}</option>`);
    return `<label><span>${escape(label)}</span><select ${attributes} data-key="${escape(key)}">${shown.join("")}</select></label>`;
  }
  for (const which of ["a", "b"]) {
    const picker = $(`.picker[data-picker="${which}"]`);
    picker.insertAdjacentHTML("afterbegin", keys.map((k) => selector(k, `data-pick="${which}"`, choices[k])).join(""));
  }
  $(".filters").innerHTML = keys.map((k) => selector(k, 'data-filter=""', ["", ...choices[k]])).join("");

  const selects = (which) => [...document.querySelectorAll(`select[data-pick="${which}"]`)];
  const picked = (which) => find(Object.fromEntries(selects(which).map((s) => [s.dataset.key, s.value])));
  const show = (which, cell) => selects(which).forEach((s) => { s.value = cell.settings[s.dataset.key]; });

  function card(measure, lines) {
    const rows = lines.map(([what, part, text, extra = ""]) =>
      `<p class="line ${extra}"><span class="what">${escape(what)}</span> ` +
        `<span class="figure" data-measure="${measure.name}" data-part="${part}">${escape(text)}</span></p>`);
    return `<article class="card" data-measure="${measure.name}"><h3>${escape(measure.label)}</h3>${rows.join("")}</article>`;
  }

  function renderPicks() {
    const a = picked("a"), b = picked("b");
    const missing = '<p class="missing">No cell has these settings.</p>';
    $("#a-name").textContent = a ? nameOf(a) : "";
    $("#a-name").dataset.cell = a ? a.cell : "";
    $("#cell-a").innerHTML = !a ? missing : measures.map((m) => card(m, [
      ["Value", "value", value(a, m)],
      [`Change against ${reference} at ${a.players} players`, "change", change(a, m)],
      ["", "phrase", phrase(a, m), /excludes/.test(phrase(a, m)) ? "clear" : ""],
    ])).join("");
    $("#b-name").textContent = b ? nameOf(b) : "";
    $("#b-name").dataset.cell = b ? b.cell : "";
    $("#compare").innerHTML = !a || !b ? missing : measures.map((m) => card(m, [
      ["A", "a", value(a, m)], ["B", "b", value(b, m)], ["B − A", "difference", difference(a, b, m)],
    ])).join("");
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

  // The table of every cell: columns of settings, then each measure's value and change
  const columns = [
    ...keys.map((k) => ({ key: k, label: k === "players" ? "table size" : k, text: (c) => c.settings[k],
      order: (c) => (k === "players" ? c.players : levels[k].indexOf(c.settings[k])) })),
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

  function renderTable() {
    const heads = columns.map((col) => {
      const sort = sorting.key === col.key ? ` aria-sort="${sorting.down ? "descending" : "ascending"}"` : "";
      const classes = col.measure ? "number" : "setting";
      return `<th class="${classes}"${sort}><button type="button" data-sort="${escape(col.key)}">${escape(col.label)}</button></th>`;
    });
    $("#cells thead").innerHTML = `<tr><th>show as</th>${heads.join("")}</tr>`;
    const filters = [...document.querySelectorAll("select[data-filter]")].filter((s) => s.value !== "");
    let rows = cells.filter((c) => filters.every((s) => c.settings[s.dataset.key] === s.value));
    const col = columns.find((c) => c.key === sorting.key);
    if (col) rows = [...rows].sort((p, q) => compare(col.order(p), col.order(q)));
    const ci = (text) => escape(text).replace(/ (\[[^\]]*\])$/, ' <span class="ci">$1</span>');
    $("#cells tbody").innerHTML = rows.map((c) => {
      const tds = columns.map((col) => col.measure
        ? `<td data-measure="${col.measure.name}" data-part="${col.part}">${ci(col.text(c))}</td>`
        : `<td class="setting">${escape(col.text(c))}</td>`);
      const pick = '<button type="button" data-show="a" title="Show as cell A">A</button>' +
        '<button type="button" data-show="b" title="Show as cell B">B</button>';
      return `<tr data-cell="${escape(c.cell)}" title="${escape(c.cell)}"><td class="show">${pick}</td>${tds.join("")}</tr>`;
    }).join("");
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
