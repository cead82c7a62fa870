// The play page of encore-sim: draws the game the server holds and sends the person's moves.
//
// No state of the game lives here: every answer of the server is the whole state (api/state),
// drawn anew, so a reload shows the same game. The page keeps only what is being chosen (dice,
// a joker's value, the boxes clicked so far) until a move is sent. URLs are relative: the page
// sits under /TOKEN/, and so every request carries the token.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const COLOURS = ["green", "yellow", "blue", "red", "orange"];
const BOX = 42, GAP = 4, STEP = BOX + GAP, LEFT = 26, TOP = 30;

let S = null;                  // the last state the server sent
let pick = fresh();            // what the person is choosing now
let hintShown = null;          // {decision, choices} of the hint on show
let polling = null;
let tab = "sheet";             // the part of the page on show where not all fit: sheet, opponents, log
// Pass-and-play: the seat whose sheet is on show. null until the person whose turn it is says it is
// them (the hand-over screen), and again whenever the turn passes to another person or the page is
// reloaded, so that nobody sees another's sheet, hint or coach by looking over a shoulder.
let viewer = null;

function fresh() {
  return {cd: null, nd: null, colour: null, number: null, cells: []};
}

const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, text = null, ns = null) {
  const e = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  if (text !== null) e.textContent = text;
  return e;
}
const svg = (tag, attrs = {}, text = null) => el(tag, attrs, text, SVG);

// --- talking to the server ---------------------------------------------------------------

// A request; `what` names it on the page if it takes more than a second (no silent wait), with
// the seconds counted and, while learned's judge still compiles, why it takes long.
async function request(path, body, what = null) {
  const init = body === undefined ? {} : {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)};
  const t0 = Date.now();
  let timer = null;
  if (what) {
    timer = setInterval(() => {
      const secs = (Date.now() - t0) / 1000;
      if (secs < 1) return;
      const w = $("working");
      const hints = S && S.preparing ? S.preparing.stages.find((x) => x.key === "hints" && !x.done) : null;
      w.textContent = `${what}… ${secs.toFixed(0)} s` + (hints
        ? ` (learned's judge is still compiling, once after an install: about ${hints.estimate} s of CPU)` : "");
      w.hidden = false;
    }, 250);
  }
  try {
    const r = await fetch(path, init);
    if (!r.ok) {
      const line = (await r.text()).trim();
      throw new Error(line || `${r.status} ${r.statusText}`);
    }
    return await r.json();
  } finally {
    if (timer) {
      clearInterval(timer);
      $("working").hidden = true;
    }
  }
}

async function load() {
  try {
    show(await request("api/state"));
  } catch (e) {
    say(`Cannot reach the game: ${e.message}`, "error");
  }
}

function show(state) {
  renderPreparing(state.preparing);
  if (!state.seats) {             // the game is still being prepared: what, and for how long
    if (!polling && !(state.preparing && state.preparing.error)) polling = setTimeout(() => { polling = null; load(); }, 600);
    return;
  }
  const newDecision = !S || S.decision !== state.decision || S.game !== state.game;
  S = state;
  if (several()) {
    if (S.over) viewer = viewer === null ? S.settings.seats[0] : viewer;
    else if (S.seat !== viewer) viewer = null;
    mark(S);
  }
  window.encoreState = state;     // read by the browser test, and handy in the console
  if (newDecision) {
    pick = fresh();
    hintShown = null;
    $("pass-confirm").hidden = true;
  }
  render();
  if ((S.analysis && S.analysis.status === "running") || S.preparing) {
    if (!polling) polling = setTimeout(() => { polling = null; load(); }, 800);
  }
}

// What the server still prepares (compiling, with an empty cache): each stage, its seconds so far
// and what it costs the first time after an install.
function renderPreparing(p) {
  window.encorePreparing = p;     // read by the browser test
  const box = $("preparing");
  const waiting = p && (p.error || p.stages.some((x) => x.key !== "hints" && !x.done));
  const hints = p && !waiting ? p.stages.find((x) => x.key === "hints") : null;
  if (!p) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  box.replaceChildren();
  if (p.error) {
    box.append(el("h2", {}, "The game could not be made"), el("p", {class: "error"}, p.error));
    return;
  }
  if (hints) {
    box.append(el("p", {class: "note", id: "preparing-hints"},
      `Preparing learned's hints and the coach: ${hints.seconds === null ? 0 : hints.seconds.toFixed(0)} s ` +
      `(once after an install: about ${hints.estimate} s of CPU). You can play meanwhile.`));
    return;
  }
  box.append(el("h2", {}, "Preparing your game"),
             el("p", {class: "note"}, "The first game after an install compiles the simulator's kernels, once; " +
                "later games start in about a second."));
  const ol = el("ol");
  for (const x of p.stages) {
    const now = x.seconds !== null && !x.done;
    const secs = x.seconds === null ? "" : ` ${x.seconds.toFixed(0)} s`;
    ol.append(el("li", {class: x.done ? "done" : now ? "now" : ""},
      `${x.text}:${x.done ? secs + ", done" : now ? secs + ` of about ${x.estimate} s the first time` :
        ` about ${x.estimate} s the first time`}`));
  }
  box.append(ol);
}

async function send(choice) {
  setBusy(true);
  try {
    show(await request("api/play", {game: S.game, decision: S.decision, choice, ...mine()}, "The bots are playing"));
  } catch (e) {
    say(e.message, "error");
    await load();
  } finally {
    setBusy(false);
  }
}

function setBusy(busy) {
  document.body.classList.toggle("busy", busy);
  for (const b of document.querySelectorAll("#actions button, #dice button")) {
    if (busy) b.disabled = true;
  }
  if (!busy) renderControls();
}

// --- what the person is choosing ---------------------------------------------------------

function yourTurn() {
  return S && !S.over && S.seat !== null && S.seats[S.seat].yours;
}

function face(kind, d) {
  return S.dice[kind][d];
}

// The choices that fit the dice, joker values and boxes picked so far.
function candidates() {
  if (!yourTurn() || pick.cd === null || pick.nd === null) return [];
  return S.choices.filter((c) =>
    c.colour_die === pick.cd && c.number_die === pick.nd &&
    (pick.colour === null || c.colour === pick.colour) &&
    (pick.number === null || c.number === pick.number) &&
    pick.cells.every((x) => c.cells.includes(x)));
}

function ready() {
  // Both dice chosen and each joker among them given its value.
  return pick.cd !== null && pick.nd !== null &&
    (face("colour", pick.cd) !== "joker" || pick.colour !== null) &&
    (face("number", pick.nd) !== "joker" || pick.number !== null);
}

function complete() {
  // The choice the boxes picked so far make whole, if they do.
  if (!ready()) return null;
  return candidates().find((c) => c.cells.length === pick.cells.length) || null;
}

function chooseDie(kind, d) {
  if (!yourTurn()) return;
  const avail = S.dice[kind + "_available"][d];
  if (!avail) {
    say("That die is not yours to take this roll: the active player used it.", "info");
    return;
  }
  const key = kind === "colour" ? "cd" : "nd";
  const value = kind === "colour" ? "colour" : "number";
  if (pick[key] === d) {
    pick[key] = null;
    pick[value] = null;
  } else {
    pick[key] = d;
    pick[value] = null;
  }
  pick.cells = [];
  askJokers();
  render();
}

function askJokers() {
  // The picker asks for the value of a chosen joker die that has none yet (the colour's first).
  if (pick.cd !== null && face("colour", pick.cd) === "joker" && pick.colour === null) askJoker("colour");
  else if (pick.nd !== null && face("number", pick.nd) === "joker" && pick.number === null) askJoker("number");
  else hidePicker();
}

function askJoker(kind) {
  // A joker die stands for any colour (number): the person says which; those that place nothing
  // with the dice chosen so far are offered disabled.
  const fits = S.choices.filter((c) =>
    (pick.cd === null || c.colour_die === pick.cd) && (pick.nd === null || c.number_die === pick.nd) &&
    (kind === "colour" || pick.colour === null || c.colour === pick.colour) &&
    (kind === "number" || pick.number === null || c.number === pick.number));
  const value = (c) => (kind === "colour" ? c.colour : c.number);
  const options = kind === "colour" ? COLOURS
    : [1, 2, 3, 4, 5].concat(fits.some((c) => c.number === 6) ? [6] : []);
  $("picker-title").textContent = kind === "colour"
    ? "Colour joker: which colour does it stand for?" : "Number joker: which number does it stand for?";
  const box = $("picker-options");
  box.replaceChildren();
  for (const o of options) {
    const usable = fits.some((c) => value(c) === o);
    const b = el("button", {type: "button", class: kind === "colour" ? `swatch ${o}` : "numeral",
                            "data-joker": String(o), "aria-label": `${kind} joker as ${o}`,
                            title: usable ? String(o) : `${o}: no legal placement with it`},
                 kind === "colour" ? "" : String(o));
    b.disabled = !usable;
    b.addEventListener("click", () => {
      pick[kind] = o;
      askJokers();
      render();
    });
    box.append(b);
  }
  $("picker").hidden = false;
  $("picker").dataset.kind = kind;
  const first = box.querySelector("button:not([disabled])");
  if (first) first.focus();
}

function hidePicker() {
  $("picker").hidden = true;
}

function clickBox(cell) {
  if (!yourTurn() || !ready()) return;
  const at = pick.cells.indexOf(cell);
  if (at >= 0) {
    pick.cells.splice(at, 1);
  } else if (litCells().has(cell)) {
    pick.cells.push(cell);
  } else {
    return;
  }
  render();
}

// A click on a box that cannot be crossed now says why, rather than nothing.
function whyNot(cell, crossed) {
  if (crossed) say(`${cell} is crossed already.`, "info");
  else if (!ready()) say("Pick a colour die and a number die first: the boxes they can cross light up.", "info");
  else say(`${cell} cannot be crossed with these dice: choose among the lit boxes, or other dice.`, "info");
}

function litCells() {
  const lit = new Set();
  if (!ready()) return lit;
  for (const c of candidates()) for (const x of c.cells) if (!pick.cells.includes(x)) lit.add(x);
  return lit;
}

// --- drawing ------------------------------------------------------------------------------

function render() {
  if (!S) return;
  renderHandover();
  renderScores();
  renderStatus();
  renderSheet($("sheet"), S.seats[you()], {big: true});
  $("controls").hidden = S.over;
  renderDice();
  renderControls();
  renderCoach();
  renderHint();
  renderOpponents();
  renderLog();
  renderTracker();
  renderTabs();
  renderEnd();
  renderHome();
  $("folder").textContent = S.folder ? `Saved as ${S.folder}` : "";
}

function you() {
  if (several()) return viewer === null ? S.settings.seats[0] : viewer;
  return S.seats.findIndex((s) => s.yours);
}

// --- several people at one screen (pass-and-play) ------------------------------------------

function several() {
  return Boolean(S && S.settings && S.settings.people && S.settings.people.length > 1);
}

// A request's "seat": the server takes a decision, hint or coach's setting for the seat whose turn it
// is alone, and the page says whose sheet it shows.
function mine(seat = you()) {
  return several() ? {seat} : {};
}

// The sheet on show is "yours": the rest of the page draws it as the person's own.
function mark(state) {
  state.seats.forEach((seat, s) => { seat.yours = s === you(); });
}

function renderHandover() {
  const box = $("handover");
  const on = several() && !S.over && viewer === null && S.seat !== null;
  document.body.dataset.handover = on ? "yes" : "no";
  box.hidden = !on;
  if (!on) return;
  const name = S.seats[S.seat].name;
  const role = S.you_active ? "you are the active player" : `${S.seats[S.active_seat].name} is active: you choose ` +
    "from the dice left";
  const go = el("button", {type: "button", id: "handover-go", class: "primary"}, `I'm ${name}, show my sheet`);
  go.addEventListener("click", () => {
    viewer = S.seat;
    mark(S);
    pick = fresh();
    hintShown = null;
    tab = "sheet";
    render();
    window.scrollTo(0, 0);
  });
  box.replaceChildren(el("h2", {id: "handover-title"}, `Pass to ${name}`),
    el("p", {}, `Roll ${S.roll}: ${name}'s turn, ${role}. The sheet, the hint and the coach are ${name}'s alone: ` +
       "hand the screen over, then click below."), go);
  const last = S.last_seat;
  if (S.settings.practice && last !== null && last !== undefined && last !== S.seat) {
    const back = el("button", {type: "button", id: "handover-undo", class: "quiet-button"},
                    `${S.seats[last].name}: take back your move`);
    back.addEventListener("click", () => takeBack(last));
    box.append(back);
  }
}

function seatName(s) {
  const seat = S.seats[s];
  if (several() && seat.yours) return `${seat.name} (you)`;
  return seat.yours ? "You" : seat.name;
}

// A seat's name, its strategy's whole spec in its tooltip.
function nameSpan(s, cls = "name") {
  const seat = S.seats[s];
  return el("span", {class: cls, title: seat.yours ? "you" : `${seat.name}: plays ${seat.label}`}, seatName(s));
}

function renderScores() {
  const ul = $("scores");
  ul.replaceChildren();
  S.seats.forEach((seat, s) => {
    const li = el("li", {class: ["score", seat.yours ? "you" : "", !S.over && S.active_seat === s && S.players > 1
      ? "active" : "", seat.winner ? "winner" : ""].join(" ").trim(), "data-seat": String(s)});
    li.append(nameSpan(s));
    li.append(el("span", {class: "points", "aria-label": `score ${seat.score}`,
                          title: S.over ? "final score" : "the score if the game ended now"}, String(seat.score)));
    li.append(el("span", {class: "jokers", title: "jokers (!) left: +1 point each at the end"}, `${seat.jokers_left} !`));
    if (seat.winner) li.append(el("span", {class: "crown", "aria-label": "winner"}, "★"));
    ul.append(li);
  });
}

function renderStatus() {
  let text;
  const total = S.rolls ? ` of ${S.rolls}` : "";
  if (S.over) {
    text = `Game over. ${S.end ? S.end.text : ""}`;
  } else if (yourTurn()) {
    if (S.players === 1) {
      text = `Roll ${S.roll}${total}: pick a colour die and a number die, then the boxes to cross, or pass.`;
    } else if (S.you_active) {
      text = `Roll ${S.roll}: you are active. Pick a colour die and a number die, or pass.`;
    } else {
      const a = S.active_seat;
      const all = S.dice.colour_available.every((x) => x) && S.dice.number_available.every((x) => x);
      text = `Roll ${S.roll}: ${seatName(a)} is active. You may use ${all ? "all six dice" :
        "the four dice it left"}.`;
    }
  } else {
    text = `Roll ${S.roll}${total}: waiting…`;
  }
  $("status").textContent = text;
}

// The game-end tracker: each player's colours complete; the game ends after the roll in which a
// player completes a second one (solo: after the last roll).
function renderTracker() {
  const t = $("tracker");
  if (S.players === 1) {
    t.hidden = S.over;
    t.textContent = `The game ends after roll ${S.rolls}: ${Math.max(0, S.rolls - S.roll)} more after this one.`;
    return;
  }
  t.hidden = false;
  const parts = S.seats.map((x) => `${seatName(x.seat)} ${Object.keys(x.colours).length}`);
  const close = S.seats.filter((x) => Object.keys(x.colours).length === 1).map((x) => seatName(x.seat));
  t.textContent = `Colours complete: ${parts.join(" · ")}. Two end the game` +
    (close.length ? `: ${close.join(", ")} ${close.length > 1 ? "are" : "is"} one colour away.` : ".");
}

function renderTabs() {
  document.body.classList.toggle("solo", S.players === 1);
  if (S.players === 1 && tab === "opponents") tab = "sheet";
  document.body.dataset.tab = tab;
  for (const b of document.querySelectorAll("#tabs button")) {
    const on = b.dataset.tab === tab || (b.dataset.tab === (S.players === 1 ? "log" : "opponents") &&
                                         tab === "sheet" && !narrow());
    b.setAttribute("aria-selected", on ? "true" : "false");
  }
}

function narrow() {
  return window.matchMedia("(max-width: 899px)").matches;
}

// A phone's width (play.css's same query): the sheet's side panel goes below it.
function phone() {
  return window.matchMedia("(max-width: 599px)").matches;
}

function boxLabel(cell, colour, star, crossed) {
  return `${cell}, ${colour}${star ? ", star" : ""}${crossed ? ", crossed" : ""}`;
}

function starPath(cx, cy, r) {
  const pts = [];
  for (let i = 0; i < 10; i++) {
    const a = -Math.PI / 2 + i * Math.PI / 5, rr = i % 2 ? r * 0.45 : r;
    pts.push(`${(cx + rr * Math.cos(a)).toFixed(1)},${(cy + rr * Math.sin(a)).toFixed(1)}`);
  }
  return pts.join(" ");
}

// The sheet of one seat, drawn as the printed sheet: letters, boxes, stars, the H column, the
// column values (first above, later below) and, at the side, the colour bonuses and the '!'.
function renderSheet(root, seat, {big, marks = null}) {
  const sh = S.sheet;
  const crossed = new Set(seat.crossed);
  const interactive = big && yourTurn();
  const lit = interactive ? litCells() : new Set();
  const chosen = new Set(marks ? marks.chosen : big ? pick.cells : []);
  const hinted = new Set(marks ? marks.hinted : big && hintShown && hintShown.choices.length ? hintShown.choices[0].cells : []);
  const recent = new Set(marks ? [] : recentCells(seat.seat));
  // On a phone the colour bonuses and the '!' go below the boxes, which then take the whole width.
  const across = big && phone();
  const below = TOP + 7 * STEP + 76;
  root.replaceChildren();
  root.setAttribute("viewBox", across ? `2 0 ${LEFT + 15 * STEP - GAP} ${below + 108}`
                                      : `0 0 ${LEFT + 15 * STEP + 190} ${below}`);
  root.setAttribute("class", big ? (interactive && ready() ? "sheet big choosing" : "sheet big") : "sheet small");
  if (big) root.setAttribute("aria-label", `Your sheet: ${seat.crossed.length} boxes crossed`);
  for (let c = 0; c < 15; c++) {
    const x = LEFT + c * STEP;
    const start = c === sh.start_column;
    if (start) {
      // The start column: framed, its letter on a dark tab, as on the printed sheet.
      root.append(svg("rect", {x: x - 4, y: TOP - 4, width: BOX + 8, height: 7 * STEP + 4, rx: 9, class: "start-col"}));
      root.append(svg("rect", {x: x - 4, y: 5, width: BOX + 8, height: 22, rx: 6, class: "start-tab"}));
    }
    const got = seat.columns[sh.columns[c]];
    const letter = svg("text", {x: x + BOX / 2, y: 21, class: (start ? "col-letter start" : "col-letter") + (got ? " done" : "")},
                       sh.columns[c] + (got ? "✓" : ""));
    if (got) letter.append(svg("title", {}, `column ${sh.columns[c]} completed: ${sh.column_points[got][c]} points`));
    root.append(letter);
  }
  for (let r = 0; r < 7; r++) {
    root.append(svg("text", {x: 10, y: TOP + r * STEP + BOX / 2 + 5, class: "row-number"}, String(r + 1)));
    for (let c = 0; c < 15; c++) {
      const cell = sh.columns[c] + (r + 1);
      const colour = COLOURS[sh.boxes[r][c]];
      const star = sh.stars[r][c];
      const x = LEFT + c * STEP, y = TOP + r * STEP;
      const cls = ["box", colour];
      if (crossed.has(cell)) cls.push("crossed");
      if (lit.has(cell)) cls.push("lit");
      if (chosen.has(cell)) cls.push("chosen");
      if (hinted.has(cell)) cls.push("hinted");
      if (recent.has(cell)) cls.push("recent");
      const g = svg("g", {class: cls.join(" "), "data-cell": cell});
      if (big) {
        g.setAttribute("aria-label", boxLabel(cell, colour, star, crossed.has(cell)));
        if (lit.has(cell) || chosen.has(cell)) {
          g.setAttribute("role", "button");
          g.setAttribute("tabindex", "0");
          g.addEventListener("click", () => clickBox(cell));
          g.addEventListener("keydown", (e) => {
            if (e.key === "Enter" || e.key === " ") { e.preventDefault(); clickBox(cell); }
          });
        } else if (interactive) {
          g.addEventListener("click", () => whyNot(cell, crossed.has(cell)));
        }
      }
      g.append(svg("rect", {x, y, width: BOX, height: BOX, rx: 6, class: "face"}));
      if (star) g.append(svg("polygon", {points: starPath(x + BOX / 2, y + BOX / 2, 11), class: "star"}));
      if (crossed.has(cell) || chosen.has(cell)) {
        const i = 10;
        g.append(svg("path", {d: `M${x + i},${y + i}L${x + BOX - i},${y + BOX - i}M${x + BOX - i},${y + i}L${x + i},${y + BOX - i}`,
                              class: crossed.has(cell) ? "cross" : "cross preview"}));
      }
      root.append(g);
    }
  }
  // Column values: the first above the later; the value the seat got circled, a first value gone struck.
  const y1 = TOP + 7 * STEP + 20, y2 = y1 + 30;
  const taken = new Set(S.columns_taken);
  for (let c = 0; c < 15; c++) {
    const col = sh.columns[c], x = LEFT + c * STEP + BOX / 2;
    const got = seat.columns[col];
    for (const [which, y] of [["first", y1], ["later", y2]]) {
      const cls = ["points", which];
      if (got === which) cls.push("got");
      if (which === "first" && taken.has(col) && got !== "first") cls.push("gone");
      const g = svg("g", {class: cls.join(" "), "data-column": col, "data-value": which});
      g.append(svg("circle", {cx: x, cy: y, r: 12}));
      g.append(svg("text", {x, y: y + 5}, String(sh.column_points[which][c])));
      if (cls.includes("gone")) g.append(svg("line", {x1: x - 10, y1: y + 10, x2: x + 10, y2: y - 10, class: "strike"}));
      root.append(g);
    }
  }
  // Colour bonuses and jokers, at the side, or below in a row each.
  const sx = across ? LEFT : LEFT + 15 * STEP + 18;
  root.append(svg("text", {x: sx, y: across ? below + 8 : 21, class: "side-title"}, "Colours"));
  const coloursTaken = new Set(S.colours_taken);
  COLOURS.forEach((colour, i) => {
    const y = across ? below + 18 : TOP + i * 34;
    const sx = across ? LEFT + i * 140 : LEFT + 15 * STEP + 18;
    const got = seat.colours[colour];
    root.append(svg("rect", {x: sx, y, width: 30, height: 26, rx: 5, class: `swatch-box ${colour}`}));
    if (got) root.append(svg("text", {x: sx + 15, y: y + 19, class: "done-mark"}, "✓"));
    for (const [which, dx] of [["first", 58], ["later", 92]]) {
      const cls = ["points", which];
      if (got === which) cls.push("got");
      if (which === "first" && coloursTaken.has(colour) && got !== "first") cls.push("gone");
      const g = svg("g", {class: cls.join(" "), "data-colour": colour, "data-value": which});
      g.append(svg("circle", {cx: sx + dx, cy: y + 13, r: 12}));
      g.append(svg("text", {x: sx + dx, y: y + 18}, String(sh.colour_bonus[which])));
      if (cls.includes("gone")) g.append(svg("line", {x1: sx + dx - 10, y1: y + 23, x2: sx + dx + 10, y2: y + 3, class: "strike"}));
      root.append(g);
    }
  });
  const jy = across ? below + 54 : TOP + 5 * 34 + 14;
  root.append(svg("text", {x: sx, y: jy + 4, class: "side-title"}, "Jokers"));
  const perRow = across ? sh.jokers : 4;
  for (let j = 0; j < sh.jokers; j++) {
    const used = j >= seat.jokers_left;
    const cx = sx + 14 + (j % perRow) * 32, cy = jy + 26 + Math.floor(j / perRow) * 32;
    const g = svg("g", {class: used ? "joker used" : "joker"});
    g.append(svg("circle", {cx, cy, r: 13}));
    g.append(svg("text", {x: cx, y: cy + 6}, "!"));
    if (used) g.append(svg("path", {d: `M${cx - 8},${cy - 8}L${cx + 8},${cy + 8}M${cx + 8},${cy - 8}L${cx - 8},${cy + 8}`, class: "cross"}));
    root.append(g);
  }
  return root;
}

function recentCells(seat) {
  // The seat's move in the last roll shown: ringed, so that a move made by a bot is seen.
  for (let k = S.log.length - 1; k >= 0; k--) {
    const m = S.log[k].moves.find((x) => x.seat === seat);
    if (m) return m.cells;
    if (S.log[k].moves.length) return [];
  }
  return [];
}

function dieFace(kind, f) {
  if (kind === "colour") return f === "joker" ? "colour joker" : f;
  return f === "joker" ? "number joker" : String(f);
}

function renderDice() {
  const box = $("dice");
  box.replaceChildren();
  if (!S.dice) return;
  for (const kind of ["colour", "number"]) {
    const row = el("div", {class: `dice-row ${kind}`});
    S.dice[kind].forEach((f, d) => {
      const avail = S.dice[kind + "_available"][d];
      const chosen = (kind === "colour" ? pick.cd : pick.nd) === d;
      const cls = ["die", kind, kind === "colour" ? String(f) : "n" + f, avail ? "" : "taken", chosen ? "chosen" : ""];
      let label = `${kind} die ${d + 1}: ${dieFace(kind, f)}`;
      if (!avail) label += ", taken by the active player";
      if (chosen) {
        const v = kind === "colour" ? pick.colour : pick.number;
        if (v !== null) label += ` as ${v}`;
      }
      const b = el("button", {type: "button", class: cls.join(" ").replace(/\s+/g, " ").trim(), "data-die": kind[0] + d,
                              "aria-pressed": chosen ? "true" : "false", "aria-label": label, title: label});
      let text = kind === "number" ? (f === "joker" ? "?" : String(f)) : (f === "joker" ? "?" : "");
      const v = chosen ? (kind === "colour" ? pick.colour : pick.number) : null;
      if (f === "joker" && v !== null) {
        text = kind === "number" ? String(v) : "";
        if (kind === "colour") b.classList.add("as-" + v);
      }
      b.textContent = text;
      b.disabled = !yourTurn();            // a taken die stays clickable: it says why it cannot be used
      if (!avail) b.setAttribute("aria-disabled", "true");
      b.addEventListener("click", () => chooseDie(kind, d));
      row.append(b);
    });
    box.append(row);
  }
}

function renderControls() {
  if (!S) return;
  const mine = yourTurn();
  const done = complete();
  $("cross").disabled = !mine || !done;
  $("cross").textContent = done
    ? `Cross ${done.cells.join(" ")}${done.jokers ? ` (${done.jokers} !)` : ""}` : "Cross";
  $("clear").disabled = !mine || (pick.cd === null && pick.nd === null);
  $("pass").disabled = !mine;
  $("hint").disabled = !mine || !S.hints;
  const practice = S.settings.practice;
  $("undo").hidden = !practice || S.over;
  $("undo").disabled = !practice || S.decision === 0 || S.over || (several() && S.last_seat !== you());
  $("practice-on").checked = practice;
  for (const b of document.querySelectorAll("#dice button")) {
    const [kind, d] = [b.dataset.die[0] === "c" ? "colour" : "number", Number(b.dataset.die.slice(1))];
    b.disabled = !mine;
  }
  if (!mine) return;
  if (ready() && !done) {
    const n = candidates();
    if (!n.length) {
      say("No legal placement with these dice: choose others, or pass.", "info");
    } else if (!pick.cells.length) {
      const size = n[0].cells.length;
      say(`Click ${size} ${n[0].colour} box${size > 1 ? "es" : ""} among the lit ones (${n.length} placement${n.length > 1 ? "s" : ""}).`, "info");
    } else {
      const more = n[0].cells.length - pick.cells.length;
      say(`${pick.cells.join(" ")} picked: ${more} more box${more > 1 ? "es" : ""}.`, "info");
    }
  } else if (done) {
    say(`Ready: ${done.colour} ${done.number} on ${done.cells.join(" ")}.`, "info");
  } else if (S.choices.length === 0) {
    say("No legal move this roll: pass.", "info");
  } else {
    say("", "");
  }
}

function say(text, kind) {
  const m = $("message");
  m.textContent = text;
  m.className = kind || "";
}

function renderCoach() {
  const on = $("coach-on"), t = $("coach-threshold");
  if (document.activeElement !== t) t.value = String(S.coach.threshold);
  on.checked = S.coach.on;
  const w = $("coach-word"), m = S.last_move;
  if (S.coach.on && m && m.loss > S.coach.threshold + 1e-9) {
    w.hidden = false;
    w.replaceChildren(el("strong", {}, `Coach: that cost ${m.loss.toFixed(2)} points. `),
      document.createTextNode(`You played ${moveText(m.choice)}; the best was ${moveText(m.best)}. ` +
        "(The loss: learned's value of its best choice minus that of yours, in points of final score.)"));
  } else {
    w.hidden = true;
  }
}

async function saveCoach() {
  const threshold = Number($("coach-threshold").value);
  try {
    show(await request("api/coach", {game: S.game, on: $("coach-on").checked,
                                     threshold: Number.isFinite(threshold) ? threshold : 1, ...mine()}));
  } catch (e) {
    say(e.message, "error");
  }
}

async function takeBack(seat = you()) {
  setBusy(true);
  let word = ["Your last move is taken back: the same dice, choose again.", "info"];
  try {
    const body = {game: S.game, decision: S.decision, ...mine(seat)};
    if (several()) viewer = null;       // the move's person shows their sheet again
    show(await request("api/undo", body, "Taking your move back"));
  } catch (e) {
    word = [e.message, "error"];
  } finally {
    setBusy(false);
  }
  say(...word);
}

async function savePractice() {
  try {
    show(await request("api/practice", {game: S.game, on: $("practice-on").checked}));
  } catch (e) {
    say(e.message, "error");
    await load();
  }
}

async function askHint() {
  try {
    const h = await request(`api/hint?game=${encodeURIComponent(S.game)}&decision=${S.decision}` +
                            (several() ? `&seat=${you()}` : ""), undefined,
                            "learned is ranking your choices");
    hintShown = h;
    render();
  } catch (e) {
    say(e.message, "error");
  }
}

function renderHint() {
  const panel = $("hint-panel");
  if (!hintShown || !yourTurn()) {
    panel.hidden = true;
    return;
  }
  panel.hidden = false;
  panel.replaceChildren(el("h2", {}, "Hint: your choices ranked by learned"));
  const shown = hintShown.choices.slice(0, 8);
  panel.append(rankedTable(shown.map((c) => ({rank: c.rank, choice: c, value: c.value, loss: c.loss,
                                              best: c.rank === 1})), {dice: true, id: "hint-table"}));
  if (hintShown.choices.length > shown.length) {
    panel.append(el("p", {class: "more"}, `and ${hintShown.choices.length - shown.length} more`));
  }
  panel.append(el("p", {class: "explain", id: "hint-words"}, S.players === 1
    ? "value: learned's estimate of your final score after this choice; loss: how much lower than the best " +
      "choice's value, in points."
    : "value: learned's estimate of your final margin over the best opponent after this choice; loss: how much " +
      "lower than the best choice's (its first choice also weighs the dice it leaves others, so it may show a small loss)."));
  const best = hintShown.choices[0];
  const foot = el("p", {class: "note"}, best.pass ? "learned would pass. " : "The best choice is outlined on your sheet. ");
  const take = el("button", {type: "button", id: "take-hint", class: "link"}, best.pass ? "Pass" : "Pick it");
  take.addEventListener("click", () => {
    if (best.pass) { send(-1); return; }
    pick = {cd: best.colour_die, nd: best.number_die,
            colour: face("colour", best.colour_die) === "joker" ? best.colour : null,
            number: face("number", best.number_die) === "joker" ? best.number : null, cells: [...best.cells]};
    hidePicker();
    render();
  });
  foot.append(take);
  panel.append(foot);
}

// A table of ranked choices (a hint, or a mistake's decision view): rows {rank, choice, value, loss,
// best, played}; with `dice`, the dice each choice takes.
function rankedTable(rows, {dice = false, id = null} = {}) {
  const table = el("table", {class: "ranked", id});
  const head = el("thead");
  const titles = rowOf(["#", "choice"].concat(dice ? ["dice"] : [], ["value", "loss"]), "th");
  for (const th of [...titles.children].slice(-2)) th.className = "num";
  head.append(titles);
  const body = el("tbody");
  for (const r of rows) {
    const tr = el("tr", {class: [r.best ? "best" : "", r.played ? "played" : ""].join(" ").trim() || null});
    tr.append(el("td", {}, String(r.rank)), el("td", {}, moveText(r.choice)));
    if (dice) {
      const td = el("td", {class: "dice-cell"});
      if (!r.choice.pass) {
        const cf = face("colour", r.choice.colour_die), nf = face("number", r.choice.number_die);
        td.append(el("span", {class: `mini colour ${cf}`, title: `colour die: ${cf}`}, cf === "joker" ? "?" : ""),
                  el("span", {class: "mini number", title: `number die: ${nf}`}, nf === "joker" ? "?" : String(nf)));
      }
      tr.append(td);
    }
    tr.append(el("td", {class: "num"}, r.value.toFixed(2)), el("td", {class: "num"}, r.loss.toFixed(2)));
    body.append(tr);
  }
  table.append(head, body);
  return table;
}

function rowOf(cells, tag) {
  const tr = el("tr");
  for (const c of cells) tr.append(el(tag, {}, c));
  return tr;
}

function renderOpponents() {
  const box = $("opponents");
  box.replaceChildren();
  S.seats.forEach((seat, s) => {
    if (seat.yours) return;
    const fig = el("figure", {class: "opponent", "data-seat": String(s)});
    const cap = el("figcaption");
    cap.append(nameSpan(s));
    cap.append(el("span", {class: "points"}, `${seat.score} points`));
    const pic = svg("svg", {role: "img", "aria-label": `${seatName(s)}'s sheet: ${seat.crossed.length} boxes crossed`});
    renderSheet(pic, seat, {big: false});
    fig.append(cap, pic);
    box.append(fig);
  });
  box.hidden = S.players === 1;
}

function eventText(e) {
  const points = e.kind === "column"
    ? S.sheet.column_points[e.which][S.sheet.columns.indexOf(e.name)] : S.sheet.colour_bonus[e.which];
  const what = e.kind === "column" ? `column ${e.name}` : `all the ${e.name} boxes`;
  const when = S.players === 1 ? "" : e.which === "first" ? " (the first to)" : " (after others: the lower value)";
  return `${seatName(e.seat)} completed ${what}: ${points} points${when}.`;
}

function moveText(m) {
  if (m.pass) return "pass";
  return `${m.colour} ${m.number} → ${m.cells.join(" ")}${m.jokers ? ` (${m.jokers} !)` : ""}`;
}

function renderLog() {
  const ol = $("log");
  ol.replaceChildren();
  for (let k = S.log.length - 1; k >= 0; k--) {
    const r = S.log[k];
    const li = el("li", {"data-roll": String(r.roll)});
    const head = el("div", {class: "roll-head"});
    head.append(el("span", {class: "roll-no"}, `Roll ${r.roll}`));
    if (S.players > 1) {
      const a = nameSpan(r.active, "active-name");
      a.textContent = `${seatName(r.active)} active`;
      head.append(a);
    }
    const dice = el("span", {class: "mini-dice", "aria-label": `dice ${r.dice.colour.join(" ")} | ${r.dice.number.join(" ")}`});
    for (const f of r.dice.colour) dice.append(el("span", {class: `mini colour ${f}`}, f === "joker" ? "?" : ""));
    for (const f of r.dice.number) dice.append(el("span", {class: "mini number"}, f === "joker" ? "?" : String(f)));
    head.append(dice);
    li.append(head);
    const ul = el("ul", {class: "moves"});
    for (const m of r.moves) {
      ul.append(el("li", {class: S.seats[m.seat].yours ? "mine" : ""}, `${seatName(m.seat)}: ${moveText(m)}`));
    }
    if (!r.moves.length) ul.append(el("li", {class: "waiting"}, "…"));
    for (const e of r.events || []) {
      ul.append(el("li", {class: "event"}, eventText(e)));
    }
    li.append(ul);
    ol.append(li);
  }
}

// --- the end: score, winner and the analysis of the person's game -----------------------------

function renderEnd() {
  const end = $("end");
  if (!S.over) {
    end.hidden = true;
    return;
  }
  end.hidden = false;
  end.replaceChildren();
  const me = S.seats[you()];
  const a = personAnalysis();
  const head = el("div", {class: "end-head"});
  head.append(el("h2", {}, "Game over"));
  if (S.end) head.append(el("p", {class: "cause", id: "end-cause"}, S.end.text));
  if (several()) {      // each person's score, level and analysis: one at a time, chosen here
    const who = el("p", {class: "people", id: "end-people"}, "Analysis of: ");
    for (const s of S.settings.seats) {
      const b = el("button", {type: "button", id: `end-person-${s}`, "aria-pressed": String(s === you()),
                              class: s === you() ? "primary" : "quiet-button"}, S.seats[s].name);
      b.addEventListener("click", () => { viewer = s; mark(S); reviewAt = null; render(); stepReview(0); });
      who.append(b);
    }
    head.append(who);
  }
  head.append(el("p", {class: "final-score", id: "final-score"},
                 several() ? `${me.name}'s score: ${me.score}` : `Your score: ${me.score}`));
  if (S.players === 1) {
    if (a.band) head.append(el("p", {class: "rating", id: "rating", title: `the rulebook's band ${a.band.scores}`},
                               `${a.band.stars}★ · ${a.band.rating}`));
  } else {
    const winners = S.seats.filter((s) => s.winner).map((s) => several() ? s.name : seatName(s.seat));
    head.append(el("p", {class: "winner", id: "winner"}, winners.length > 1
      ? `Winners: ${winners.join(", ")}` : winners[0] === "You" ? "You win!" : `Winner: ${winners[0]}`));
  }
  if (a.rating) {
    head.append(el("p", {class: "level", id: "level", title: a.rating.words},
      `${several() ? me.name : "You"} played like level ${a.rating.level}, ${a.rating.name}` +
      (a.rating.low !== a.rating.high ? ` (95%: level ${a.rating.low} to ${a.rating.high})` : "")));
  }
  if (S.settings.practised || a.practice) head.append(el("p", {class: "practice-mark", id: "practice-mark"},
    `Practice game: ${S.settings.takebacks} move${S.settings.takebacks === 1 ? "" : "s"} taken back`));
  end.append(head);
  const body = el("div", {class: "analysis", id: "analysis", "data-status": a.status});
  if (a.status === "running") {
    const secs = a.seconds !== undefined ? ` ${a.seconds.toFixed(0)} s` : "";
    body.append(el("p", {class: "working"}, `Analysing your game against learned:${secs} (each decision judged ` +
      "by learned; about 10 s, more the first time after an install, when the analysis compiles)…"));
  } else if (a.status === "failed") {
    body.append(el("p", {class: "error"}, `The analysis failed: ${a.error}`));
  } else if (a.status === "done") {
    analysisView(body, a);
  }
  end.append(body);
  if (a.status === "done" && document.body.dataset.view !== "home") end.append(gameReview());
  if (S.folder) {
    const p = el("p", {class: "saved", id: "saved"});
    p.append(document.createTextNode("Saved as a dataset: "), el("code", {}, S.folder),
             document.createTextNode(". Every command reads it, e.g. "),
             el("code", {}, `encore-sim analyse ${S.folder} --game ${S.settings.game}`), document.createTextNode("."));
    end.append(p);
  }
}

// --- your game, stepped through: each of your decisions with the sheets as they were ----------

let reviewAt = null;           // {decision, view} on show
let reviewFrom = null;         // null: this game's review; {folder, decisions}: a saved game's (the home page)

// The review box for this game (not a saved game's): set back to this game if it showed another.
function gameReview() {
  const box = reviewBox();
  if (reviewFrom !== null) {
    reviewFrom = null;
    reviewAt = null;
    setTimeout(() => stepReview(0), 0);
  }
  return box;
}
const reviewBoxEl = el("section", {id: "review", "aria-label": "Your game, roll by roll"});

function reviewBox() {
  if (!reviewBoxEl.childElementCount) {
    const prev = el("button", {type: "button", id: "review-prev", class: "quiet-button"}, "◀ Previous");
    const next = el("button", {type: "button", id: "review-next", class: "quiet-button"}, "Next ▶");
    prev.addEventListener("click", () => stepReview(-1));
    next.addEventListener("click", () => stepReview(1));
    reviewBoxEl.append(el("h3", {}, "Your game, roll by roll"),
      el("p", {class: "explain"}, "Your sheet as it was before each of your decisions: your move crossed " +
         "white, learned's choice outlined; the loss of your move and the luck of the roll."),
      prev, next, el("p", {id: "review-words"}),
      el("p", {id: "review-chances"}),
      el("p", {id: "review-chances-what", class: "explain"}),
      svg("svg", {id: "review-sheet", role: "img"}),
      el("div", {id: "review-others"}));
    setTimeout(() => stepReview(0), 0);
  }
  return reviewBoxEl;
}

// The analysis of the person on show (several people at one screen: theirs among everybody's).
function personAnalysis() {
  const a = S.analysis || {status: "off"};
  if (!several() || !a.people) return a;
  return {...a.people.find((p) => p.seat === you()), status: a.status};
}

async function stepReview(by) {
  const a = personAnalysis();
  const n = reviewFrom ? reviewFrom.decisions : several() ? (a.decisions || 0) : S.decision;
  const k = Math.max(0, Math.min(n - 1, reviewAt === null ? 0 : reviewAt.decision + by));
  try {
    const seat = reviewFrom ? reviewFrom.seat : several() ? you() : null;
    const path = (reviewFrom ? `api/saved?folder=${encodeURIComponent(reviewFrom.folder)}&decision=${k}`
      : `api/review?decision=${k}`) + (seat === null || seat === undefined ? "" : `&seat=${seat}`);
    const v = await request(path, undefined, "Setting the game back to that roll");
    reviewAt = {decision: k, view: v};
    drawReview();
  } catch (e) {
    $("review-words").textContent = e.message;
  }
}

function drawReview() {
  const v = reviewAt.view, r = v.review;
  const saved = S;
  const was = viewer;
  S = v;                        // the sheets are drawn as the game was then
  try {
    if (several()) {
      viewer = r.seat;
      mark(v);
    }
    const me = v.seats[you()];
    renderSheet($("review-sheet"), me, {big: false, marks: {chosen: r.yours.cells || [], hinted: r.learned ? r.learned.cells : []}});
    const others = $("review-others");
    others.replaceChildren();
    v.seats.forEach((seat, s) => {
      if (seat.yours) return;
      const pic = svg("svg", {role: "img", class: "review-other", "aria-label": `${seatName(s)}'s sheet then`});
      renderSheet(pic, seat, {big: false, marks: {chosen: [], hinted: []}});
      others.append(el("p", {class: "note"}, `${seatName(s)}: ${seat.score} points then`), pic);
    });
  } finally {
    S = saved;
    viewer = was;
  }
  const dice = v.dice ? `dice ${v.dice.colour.join(" ")} | ${v.dice.number.join(" ")}` : "";
  $("review-words").textContent = `Decision ${r.decision + 1} of ${r.decisions}, roll ${v.roll} (${dice}): ` +
    `you played ${moveText(r.yours)}, learned's best ${moveText(r.learned)}; loss ` +
    `${r.loss === null || r.loss === undefined ? "-" : r.loss.toFixed(2)}` +
    (r.luck === null || r.luck === undefined ? "" : `, luck of the roll ${signed(r.luck)}`) + ".";
  const c = r.chances;
  $("review-chances").textContent = !c ? "" : c.solo
    ? `Expected final score: ${c.seats[0].expected_score.toFixed(1)}`
    : "Chance of winning: " + c.seats.map((x) => `${x.seat === v.you && !(v.settings.people || []).length ? "You" : x.name} ${Math.round(100 * x.win_prob)}%`).join(", ");
  $("review-chances-what").textContent = !c ? "" : c.solo
    ? "What learned expects you to finish with from your sheet before this roll (if learned played the rest)."
    : "Each player's chance of winning before this roll, from the sheets then, by the win model fitted on learned's games.";
  $("review-prev").disabled = r.decision === 0;
  $("review-next").disabled = r.decision === r.decisions - 1;
}

// A choice of the analysis (its boxes and '!' only): its colour is its first box's.
function choiceOf(c) {
  if (c.pass) return {pass: true};
  const [col, row] = [S.sheet.columns.indexOf(c.cells[0][0]), Number(c.cells[0].slice(1)) - 1];
  return {pass: false, colour: COLOURS[S.sheet.boxes[row][col]], number: c.cells.length, cells: c.cells,
          jokers: c.jokers};
}

function signed(x) {
  return `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(2)}`;
}

function analysisView(box, a) {
  const facts = el("dl", {class: "facts", id: "facts"});
  const add = (k, v, title = null) => {
    const pair = el("div");
    pair.append(el("dt", {title}, k), el("dd", {title}, v));
    facts.append(pair);
  };
  add("Your decisions", String(a.decisions));
  add("Unlike learned's", String(a.differs), "decisions where you chose otherwise than learned");
  add("Points lost", a.loss_total.toFixed(2), "learned's value of its choice minus that of yours, summed");
  add("Per decision", a.loss_per_decision.toFixed(3));
  if (a.luck_total !== null && a.luck_total !== undefined) {
    add("Luck of the dice", signed(a.luck_total), "what your rolls were worth beyond an average roll's, summed");
  }
  box.append(facts);
  box.append(el("p", {class: "explain", id: "facts-words"}, "Points lost: learned's value of its choice minus " +
    "that of yours, in points of final score, summed over your decisions; per decision: their mean." +
    (a.luck_total !== null && a.luck_total !== undefined
      ? " Luck: what your dice were worth beyond an average roll's (the best choice's value with these dice " +
        "minus its mean over all dice)." : "")));
  box.append(el("h3", {}, "Loss per decision"));
  box.append(bars(a.rolls.map((r) => ({roll: r.roll, v: r.loss, label: `roll ${r.roll}: ${r.loss.toFixed(2)} lost`})),
                  {id: "loss-chart", unit: "points lost"}));
  const lucky = a.rolls.filter((r) => r.luck !== null && r.luck !== undefined);
  if (lucky.length) {
    box.append(el("h3", {}, "Luck per roll"));
    box.append(bars(lucky.map((r) => ({roll: r.roll, v: r.luck, label: `roll ${r.roll}: ${signed(r.luck)}`})),
                    {id: "luck-chart", twoSided: true, unit: "luck, points"}));
  }
  box.append(el("h3", {}, "Your largest mistakes"));
  const list = el("ol", {class: "mistakes", id: "mistakes"});
  if (!a.mistakes.length) list.append(el("li", {}, "None: every move of yours was as good as learned's."));
  for (const m of a.mistakes) {
    const li = el("li", {class: "mistake"});
    li.append(el("p", {class: "what"}, `Roll ${m.roll}${m.view && m.view.dice ? ` (dice ${m.view.dice})` : ""}: ` +
      `you played ${moveText(choiceOf(m.chosen))}, learned ${moveText(choiceOf(m.best))}: ${m.loss.toFixed(2)} points lost.`));
    if (m.view && m.view.options) {
      const top = m.view.options[0].value;
      const shown = m.view.options.filter((o, k) => k < 5 || o.played);
      li.append(rankedTable(shown.map((o) => ({rank: o.rank, choice: o, value: o.value, loss: top - o.value,
                                               best: o.rank === 1, played: o.played}))));
    }
    list.append(li);
  }
  box.append(list);
}

// A bar per roll: height |v|, above the axis (red: a loss; green: good luck) or below it.
function bars(items, {id, twoSided = false, unit = "points", across = "roll"}) {
  // Bars in the top `base` pixels (around the axis `mid`), the rolls' numbers and the axis's title
  // in the last 26.
  const w = 640, base = twoSided ? 120 : 80, h = base + 26, mid = twoSided ? base / 2 : base - 2;
  const pic = svg("svg", {viewBox: `0 0 ${w} ${h}`, class: "chart", id, role: "img",
                          "aria-label": items.map((i) => i.label).join("; ")});
  const top = Math.max(0.5, ...items.map((i) => Math.abs(i.v)));
  const bw = Math.max(3, Math.min(18, (w - 40) / Math.max(1, items.length) - 2));
  pic.append(svg("line", {x1: 30, y1: mid, x2: w - 4, y2: mid, class: "axis"}));
  pic.append(svg("text", {x: 26, y: 12, class: "tick"}, top.toFixed(1)));
  pic.append(svg("text", {x: 34, y: h - 2, class: "axis-title"}, `${across} →   bars: ${unit} (the top tick is ${top.toFixed(1)})`));
  items.forEach((it, k) => {
    if (it.roll !== undefined && (it.roll === 1 || it.roll % 5 === 0)) {
      pic.append(svg("text", {x: 34 + k * (bw + 2) + bw / 2, y: base + 11, class: "tick x"}, String(it.roll)));
    }
    const len = (Math.abs(it.v) / top) * (twoSided ? base / 2 - 8 : base - 14);
    const x = 34 + k * (bw + 2);
    const up = twoSided ? it.v >= 0 : true;
    const r = svg("rect", {x, y: up ? mid - len : mid, width: bw, height: Math.max(len, 0.5),
                           class: twoSided ? (it.v >= 0 ? "bar good" : "bar bad") : "bar loss"});
    r.append(svg("title", {}, it.label));
    pic.append(r);
  });
  return pic;
}

// --- a first game: the tutorial, and the games played before -----------------------------------

const TUTORIAL = [
  ["A move", "Each roll shows colour dice and number dice. Pick one colour die and one number die, then cross " +
   "that many boxes of that colour in one connected group on your sheet: 3 and blue cross three blue boxes " +
   "that touch. Or pass."],
  ["Start from H", "Your first boxes must touch column H (framed); every later group must touch a box you " +
   "crossed before. The page lights up the boxes your dice can cross."],
  ["Jokers", "The black colour die and the ? number die are jokers: any colour, any number 1 to 5. Each joker " +
   "used costs one ! of your eight; every ! left is worth a point at the end."],
  ["Points", "A full column scores the number above it (below it if someone completed it first); all the " +
   "boxes of a colour score 5 (3 if later). Each star not crossed costs 2: that is why everyone starts at −22."],
  ["The end", "Solo: after 30 rolls. At a table: after the roll in which someone completes a second colour. " +
   "The tracker above the sheet says who is close. Highest score wins."],
];
let tutorialAt = 0;

function renderTutorial() {
  tutorialAt = Math.max(0, Math.min(TUTORIAL.length - 1, tutorialAt));
  const [title, text] = TUTORIAL[tutorialAt];
  $("tutorial-step").replaceChildren(el("h3", {}, `${tutorialAt + 1} of ${TUTORIAL.length}: ${title}`),
                                     el("p", {}, text));
  $("tutorial-back").disabled = tutorialAt === 0;
  $("tutorial-next").disabled = tutorialAt === TUTORIAL.length - 1;
}

// The games kept beside this one, in `box`: a table (with a Review button each where `review`) and
// your level game by game; ids prefixed by `prefix` (the home page and the game's tab show both).
async function loadGames(box = $("games"), prefix = "", review = false) {
  try {
    const games = await request("api/games", undefined, "Reading your saved games");
    window.encoreGames = games;
    box.replaceChildren();
    if (!games.length) { box.append(el("p", {}, "No games yet.")); return; }
    const table = el("table", {id: `${prefix}games-table`});
    table.append(rowOf(["date", "players", "score", "level", "", ...(review ? [""] : [])], "th"));
    for (const g of games.slice().reverse()) {
      const many = (g.people || []).length > 1;
      const row = many
        ? rowOf([g.date, `${g.players}: ${g.people.map((p) => p.name).join(", ")}`,
                 g.over ? g.people.map((p) => `${p.name} ${p.score === null ? "" : p.score}`).join(", ") : "playing",
                 g.people.filter((p) => p.rated).map((p) => `${p.name} ${p.rated}`).join(", "),
                 g.practice ? "practice" : ""], "td")
        : rowOf([g.date, String(g.players), g.score === null ? (g.over ? "" : "playing") : String(g.score),
                 g.rated ? `${g.rated} ${g.rated_name}` : "", g.practice ? "practice" : ""], "td");
      row.dataset.folder = g.folder;
      if (review) {
        const cell = el("td");
        if (g.over && many) {            // a Review each: every person steps through their own decisions
          for (const p of g.people.filter((p) => p.moves)) {
            const b = el("button", {type: "button", class: "quiet-button review-saved", "data-folder": g.folder,
                                    "data-seat": String(p.seat)}, `Review ${p.name}`);
            b.addEventListener("click", () => reviewSaved(g, p));
            cell.append(b);
          }
        } else if (g.over && g.moves) {
          const b = el("button", {type: "button", class: "quiet-button review-saved", "data-folder": g.folder}, "Review");
          b.addEventListener("click", () => reviewSaved(g));
          cell.append(b);
        }
        row.append(cell);
      }
      table.append(row);
    }
    const rated = games.filter((g) => g.rated && !((g.people || []).length > 1));
    if (rated.length) {
      box.append(el("h3", {}, "Your level, game by game"));
      box.append(bars(rated.map((g, k) => ({roll: k + 1, v: g.rated, label: `${g.date}: level ${g.rated}`})),
                      {id: `${prefix}level-chart`, unit: "your level (1 beginner .. 5 learned)", across: "game"}));
    }
    box.append(table);
  } catch (e) {
    box.replaceChildren(el("p", {class: "error"}, e.message));
  }
}

// A saved game stepped through on the home page: the review's box, moved there; `person` (one of
// g.people) for a game of several people, whose decisions are stepped through.
function reviewSaved(g, person = null) {
  const who = person || {moves: g.moves, seat: null, name: "Your", score: g.score, rated: g.rated, rated_name: g.rated_name};
  reviewFrom = {folder: g.folder, decisions: who.moves, seat: who.seat};
  reviewAt = null;
  const title = (person ? `${person.name}'s game of ${g.date}` : `Your game of ${g.date}`) +
    (who.score === null || who.score === undefined ? "" : `: ${who.score} points`) +
    (who.rated ? `, played like level ${who.rated}${who.rated_name ? " " + who.rated_name : ""}` : "");
  $("home-review").replaceChildren(el("h2", {id: "home-review-title"}, title), reviewBox());
  stepReview(0);
}

// The home page (#home, or no hash) or the game (#game): one page, two views.
function setView() {
  const home = location.hash !== "#game";
  document.body.dataset.view = home ? "home" : "game";
  if (home) {
    loadGames($("home-games"), "home-", true);
  } else if (S) {
    render();
  }
  window.scrollTo(0, 0);
}

function renderHome() {
  $("home-play").textContent = !S || (!S.over && !S.decision) ? "Start a new game"
    : S.over ? "This game and its analysis" : "Continue your game";
  renderPeople(false);
}

// Who plays at this screen, chosen before the first move: how many people (the others' seats are
// bots) and their names. The server seats them (api/people).
function renderPeople(changed) {
  const box = $("home-people");
  const open = Boolean(S && S.seats && !S.over && S.decision === 0 && S.players > 1);
  box.hidden = !open;
  if (!open) return;
  const count = $("people-count");
  const now = Math.max(1, (S.settings.people || []).length);
  if (!changed && document.activeElement !== count) {
    count.replaceChildren(...Array.from({length: S.players}, (_, k) =>
      el("option", {value: String(k + 1), selected: k + 1 === now}, k === 0 ? "1 (you against the bots)" : String(k + 1))));
  }
  const n = Number(count.value) || now;
  const names = $("people-names");
  const kept = Array.from(names.querySelectorAll("input")).map((i) => i.value);
  names.replaceChildren();
  for (let k = 0; k < n && n > 1; k++) {
    const given = kept[k] !== undefined ? kept[k] : (S.settings.people || [])[k] || "";
    const input = el("input", {type: "text", id: `people-name-${k}`, maxlength: "24", placeholder: `Player ${k + 1}`,
                               "aria-label": `name of player ${k + 1} (seat ${k + 1})`});
    input.value = given;
    names.append(el("label", {}, `Seat ${k + 1} `), input);
  }
  $("people-bots").textContent = S.players - n ? `${S.players - n} bot${S.players - n > 1 ? "s" : ""} ` +
    `(${S.seats[S.players - 1].label}) hold${S.players - n > 1 ? "" : "s"} the other seats.` : "No bots: people alone.";
}

async function savePeople() {
  const n = Number($("people-count").value);
  const names = n > 1 ? Array.from({length: n}, (_, k) => $(`people-name-${k}`).value.trim() || `Player ${k + 1}`) : [];
  try {
    viewer = null;
    show(await request("api/people", {game: S.game, names}));
    $("people-message").textContent = n > 1 ? `Seated: ${names.join(", ")}. Start the game, then pass the screen ` +
      "round when the page asks." : "You play alone against the bots.";
    $("people-message").className = "";
  } catch (e) {
    $("people-message").textContent = e.message;
    $("people-message").className = "error";
  }
}

// --- wiring -------------------------------------------------------------------------------

document.addEventListener("DOMContentLoaded", () => {
  $("cross").addEventListener("click", () => { const c = complete(); if (c) send(c.i); });
  $("pass").addEventListener("click", () => { hidePicker(); $("pass-confirm").hidden = false; $("pass-yes").focus(); });
  $("pass-yes").addEventListener("click", () => { $("pass-confirm").hidden = true; send(-1); });
  $("pass-no").addEventListener("click", () => { $("pass-confirm").hidden = true; });
  $("undo").addEventListener("click", () => takeBack());
  $("people-count").addEventListener("change", () => renderPeople(true));
  $("people-save").addEventListener("click", savePeople);
  $("practice-on").addEventListener("change", savePractice);
  let wasPhone = phone();
  window.addEventListener("resize", () => {
    if (!S) return;
    renderTabs();
    if (phone() !== wasPhone) renderSheet($("sheet"), S.seats[you()], {big: true});
    wasPhone = phone();
  });
  for (const b of document.querySelectorAll("#tabs button")) {
    b.addEventListener("click", () => {
      tab = b.dataset.tab;
      if (S) renderTabs();
      if (tab === "games") loadGames();
      window.scrollTo(0, 0);
    });
  }
  $("tutorial-open").addEventListener("click", () => { tutorialAt = 0; renderTutorial(); $("tutorial").hidden = false; });
  $("tutorial-next").addEventListener("click", () => { tutorialAt += 1; renderTutorial(); });
  $("tutorial-back").addEventListener("click", () => { tutorialAt -= 1; renderTutorial(); });
  $("tutorial-close").addEventListener("click", () => { $("tutorial").hidden = true; });
  $("clear").addEventListener("click", () => { pick = fresh(); hidePicker(); render(); });
  $("hint").addEventListener("click", askHint);
  $("picker-cancel").addEventListener("click", () => {
    const kind = $("picker").dataset.kind;
    if (kind === "colour") pick.cd = null; else pick.nd = null;
    hidePicker();
    render();
  });
  $("coach-on").addEventListener("change", saveCoach);
  $("coach-threshold").addEventListener("change", saveCoach);
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && !$("picker").hidden) $("picker-cancel").click();
  });
  $("home-play").addEventListener("click", () => { location.hash = "game"; });
  $("home-tutorial").addEventListener("click", () => $("tutorial-open").click());
  window.addEventListener("hashchange", setView);
  setView();
  load();
});
