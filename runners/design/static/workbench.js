// The workbench page of `sigmar serve`: plain JavaScript, no build step, nothing loaded from elsewhere.
// The server parses, draws (the suite's own SVG), solves, explains and judges moves; this page keeps the
// board being edited, sends it on every edit (cancelling what is still in flight), and shows the answers.
(function () {
  "use strict";

  var SYMBOLS = [".", "a", "e", "f", "w", "s", "v", "m", "q", "1", "2", "3", "4", "5", "6", "7", "8", "9", "x"];
  var NAMES = {".": "empty", a: "air", e: "earth", f: "fire", w: "water", s: "salt", v: "vitae", m: "mors",
    q: "quicksilver", x: "quintessence"};
  var METALS = {1: "lead", 2: "tin", 3: "iron", 4: "copper", 5: "silver"};
  var STANDARD = {a: 8, e: 8, f: 8, w: 8, s: 4, v: 4, m: 4, q: 5};
  var $ = function (id) { return document.getElementById(id); };
  // The server writes a secret into this page; every post carries it, which a page elsewhere cannot read.
  var TOKEN = document.querySelector("meta[name=sigmar-token]").content;

  var state = {
    dim: 6, name: "", grid: {}, svg: "", text: "", boards: [], gold: null,
    mode: "edit", brush: "a", edits: 0,
    verdict: null, explanation: null,
    replay: null,            // {moves: [[cell...]...], k, title}
    play: null               // see newPlay()
  };
  var inflight = {};         // name -> AbortController

  function tileName(symbol) {
    if (NAMES[symbol]) return NAMES[symbol];
    if (symbol === state.gold) return "gold";
    return METALS[symbol] ? METALS[symbol] + " (metal " + symbol + ")" : "metal " + symbol;
  }

  function where(cell) { return "[" + cell.replace(",", ", ") + "]"; }

  // ---------------------------------------------------------------- the board as text

  function rowLength(dim, row) { return dim + Math.min(row, 2 * dim - 2 - row); }

  function toText() {
    var lines = [];
    if (state.name) lines.push("# " + state.name);
    for (var r = 0; r < 2 * state.dim - 1; r++) {
      var cells = [];
      for (var c = 0; c < rowLength(state.dim, r); c++) cells.push(state.grid[r + "," + c] || ".");
      lines.push(" ".repeat(2 * state.dim - 1 - cells.length) + cells.join(" "));
    }
    return lines.join("\n") + "\n";
  }

  function fromRecord(record) {
    state.dim = record.dim;
    state.name = record.name && record.name.indexOf("the board text:") !== 0 ? record.name : "";
    state.grid = {};
    record.cells.forEach(function (cell) { state.grid[cell[0] + "," + cell[1]] = cell[2]; });
    state.svg = record.svg;
    state.gold = record.gold;
  }

  // ---------------------------------------------------------------- talking to the server

  function post(name, path, body) {
    if (inflight[name]) inflight[name].abort();
    var controller = new AbortController();
    inflight[name] = controller;
    return fetch(path, {method: "POST", headers: {"Content-Type": "application/json", "X-Sigmar-Token": TOKEN},
      body: JSON.stringify(body), signal: controller.signal})
      .then(function (response) {
        return response.json().then(function (data) {
          if (inflight[name] === controller) delete inflight[name];
          return {ok: response.ok, status: response.status, data: data};
        });
      });
  }

  function cancel(names) {
    names.forEach(function (name) { if (inflight[name]) { inflight[name].abort(); delete inflight[name]; } });
  }

  function aborted(error) { return error && error.name === "AbortError"; }

  // ---------------------------------------------------------------- an edit, and its live verdict

  // `source`: "grid" (a click, a new or opened board: the text box is rewritten) or "text" (typed or pasted).
  function changed(source) {
    state.edits += 1;
    document.body.dataset.edits = String(state.edits);
    var seq = state.edits;
    var text = source === "text" ? $("text").value : toText();
    if (source !== "text") $("text").value = text;
    state.text = text;
    $("open").value = "";  // the board is no longer the one opened (opening sets it back)
    cancel(["verdict", "explain", "play", "position"]);
    stopReplay();
    showCounts();
    state.verdict = null;
    setVerdict(seq, "busy", "Solving…");
    $("detail").textContent = "";
    $("explanation").textContent = "";
    var drawing = post("draw", "/api/draw", {text: text});
    var verdict = post("verdict", "/api/verdict", {text: text});
    verdict.catch(function () {});  // an aborted verdict (a newer edit) is no error; the chain below reports others
    drawing.then(function (answer) {
      if (seq !== state.edits) return;
      if (!answer.ok) {
        cancel(["verdict"]);
        $("text-error").textContent = answer.data.error;
        setVerdict(seq, "error", "The board text is not a board (see the message under the text).");
        return;
      }
      $("text-error").textContent = "";
      fromRecord(answer.data);
      state.drawn = answer.data;
      if (source === "text") showCounts();
      drawBoard();
      if (state.mode === "play") startPlay();
      return verdict.then(function (reply) {
        if (seq !== state.edits) return;
        if (!reply.ok) { setVerdict(seq, "error", reply.data.error); return; }
        showVerdict(seq, reply.data);
      });
    }).catch(function (error) { if (!aborted(error)) setVerdict(seq, "error", String(error)); });
  }

  // The banner: the board's verdict while editing, the position's while playing (data-seq: the edit it is for).
  function setVerdict(seq, status, text) {
    var box = $("verdict");
    box.dataset.seq = String(seq);
    state.banner = {status: status, text: text};
    if (state.mode === "play" && state.play) return;  // the position's banner stays until play ends
    box.dataset.status = status;
    box.textContent = text;
  }

  function setBanner(status, text) {
    var box = $("verdict");
    box.dataset.status = status;
    box.textContent = text;
  }

  // The answer's `reason` (docs/formats.md#the-json-of-an-answer) in a designer's words.
  var REASONS = {
    counts: "the tile counts cannot pair up",
    static: "tiles that can never be freed",
    exhausted: "every play was tried",
    proof: "a SAT solver's proof",
    corroborated: "two solvers agree (not checked)"
  };

  function cellsOf(list) { return (list || []).map(function (c) { return c[0] + "," + c[1]; }); }

  function showVerdict(seq, answer) {
    state.verdict = answer;
    state.explanation = null;
    var detail = $("detail");
    detail.textContent = "";
    if (answer.status === "solved") {
      var n = answer.moves.length;
      setVerdict(seq, "solved", "Solvable: cleared in " + n + " move" + (n === 1 ? "" : "s") +
        (answer.verified ? " (replayed by the rule engine)" : " (NOT replayed)"));
      detail.appendChild(button("replay-solution", "Step through the solution", function () {
        startReplay(answer.moves.map(function (m) { return cellsOf(m.cells); }), "solution");
      }));
      measure(seq);
      return;
    }
    if (answer.status === "unsolvable") {
      var cert = answer.certificate ? answer.certificate.kind : "no";
      setVerdict(seq, "unsolvable", "Unsolvable: " + (REASONS[answer.reason] || answer.reason) +
        " (" + answer.reason + ")");
      detail.appendChild(para(answer.explanation + " [" + cert + " certificate " +
        (answer.checked ? "checked" : "NOT checked") + "]"));
      if (state.mode === "edit") mark("held", cellsOf(answer.stuck));
      if (answer.stuck && answer.stuck.length) {
        detail.appendChild(note("The " + answer.stuck.length + " tiles of the stuck set are ringed in red."));
      }
      explain(seq);
      return;
    }
    setVerdict(seq, answer.status, (answer.status === "unknown" ? "Unknown: " : "Error: ") +
      (answer.message || "no answer within the time limit"));
  }

  // ---------------------------------------------------------------- why not: the deepest play and a repair

  function explain(seq) {
    var box = $("explanation");
    box.textContent = "";
    box.appendChild(note("Looking for the deepest play and a repair…"));
    post("explain", "/api/explain", {text: state.text}).then(function (reply) {
      if (seq !== state.edits) return;
      box.textContent = "";
      if (!reply.ok) { box.appendChild(note("No explanation: " + reply.data.error)); return; }
      state.explanation = reply.data;
      showDeepest(box, reply.data.deepest);
      showRepair(box, reply.data.repair);
    }).catch(function (error) { if (!aborted(error)) box.textContent = String(error); });
  }

  function showDeepest(box, deepest) {
    if (!deepest) return;
    box.appendChild(heading("Deepest play"));
    var bound = deepest.proved ? "no play clears more (play-bound certificate checked)" :
      "at least: no bound was proved in the time";
    var moves = deepest.moves.length;
    box.appendChild(para("It clears " + deepest.cleared + " of " + deepest.tiles + " tiles in " + moves +
      " move" + (moves === 1 ? "" : "s") + "; " + bound + ".", "deepest"));
    box.appendChild(para("The position it leaves: " + deepest.why + ".", "why-stuck"));
    box.appendChild(button("replay-deepest", "Step through the deepest play", function () {
      startReplay(deepest.moves.map(function (m) { return cellsOf(m.cells); }), "deepest play",
        cellsOf(deepest.stuck));
    }));
  }

  function showRepair(box, repair) {
    if (!repair) return;
    box.appendChild(heading("Smallest repair"));
    if (!repair.board) {
      box.appendChild(para((repair.none_with_one_change ? "No repair with one change: " : "No repair found: ") +
        repair.why + ".", "repair"));
      return;
    }
    var text = repair.changes.map(function (c) { return c.text; }).join("; ");
    box.appendChild(para("One change makes it solvable: " + text + " (its solution of " + repair.moves.length +
      " moves " + (repair.verified ? "replayed" : "NOT replayed") + ").", "repair"));
    var cells = [];
    repair.changes.forEach(function (c) { cells = cells.concat(cellsOf(c.cells)); });
    state.changes = cells;
    if (state.mode === "edit") markCells("change", cells);
    box.appendChild(note("Both cells it changes are outlined in green."));
    box.appendChild(button("apply-repair", "Apply the repair", function () { load(repair.board); }));
  }

  // ---------------------------------------------------------------- how hard: the difficulty figures

  function percent(p) {
    if (p === 0) return "0%";
    if (p >= 0.01) return (100 * p).toFixed(p >= 0.1 ? 1 : 2) + "%";
    return (100 * p).toPrecision(2) + "%";
  }

  function measure(seq) {
    var box = $("explanation");
    box.textContent = "";
    box.appendChild(heading("Difficulty"));
    var wait = note("Working out how hard it is: every position random play can reach…");
    box.appendChild(wait);
    post("difficulty", "/api/difficulty", {text: state.text}).then(function (reply) {
      if (seq !== state.edits) return;
      wait.remove();
      if (!reply.ok) { box.appendChild(note("No difficulty: " + reply.data.error)); return; }
      showDifficulty(box, reply.data);
    }).catch(function (error) { if (!aborted(error)) wait.textContent = String(error); });
  }

  function showDifficulty(box, found) {
    var win = found.win, graph = found.graph;
    var chance = win.exact ?
      "Random play clears it " + percent(win.value) + " of the time" +
        (win.value > 0 ? " (about 1 game in " + Math.round(1 / win.value).toLocaleString("en") + ")" : "") +
        ": exact, over all " + graph.states.toLocaleString("en") + " positions it can reach." :
      "Random play clears it about " + percent(win.value) + " of the time: SAMPLED, " + win.wins + " of " +
        win.runs + " random plays (95% interval " + percent(win.low) + " to " + percent(win.high) +
        "); the positions were too many to walk.";
    var list = document.createElement("ul");
    list.id = "difficulty";
    list.dataset.exact = String(win.exact);
    var item = function (text) { var li = document.createElement("li"); li.textContent = text; list.appendChild(li); };
    item(chance);
    if (found.safe_first_moves !== null) {
      item("Safe first moves: " + found.safe_first_moves + " of " + found.first_moves +
        " (after the others the board cannot be cleared).");
    }
    if (found.mean_safe_moves !== null) {
      item("Along the solutions a player has " + found.mean_safe_moves.toFixed(2) +
        " safe moves to choose from on average.");
    }
    var trap = found.deepest_trap;
    if (trap) {
      var last = trap.moves.length ? describe(cellsOf(trap.moves[trap.moves.length - 1].cells)) : "the start";
      item("Deepest trap: move " + trap.move + " of " + trap.of + " (" + last + ") loses with " + trap.tiles_left +
        " tiles left: " + trap.why +
        (trap.checked ? " (certificate checked)." : " (NOT certified in the time)."));
    } else if (win.exact && win.value === 1) {
      item("No trap: every play clears the board.");
    }
    if (found.pairings) {
      item("Pairings (ways to split it into moves that clear it): " + (found.pairings.exact ? "" : "at least ") +
        Number(found.pairings.count).toLocaleString("en") + (found.pairings.exact ? "." : " (the count ran out of time)."));
    }
    box.appendChild(list);
    if (trap && trap.moves.length) {
      box.appendChild(button("replay-trap", "Step through the deepest trap", function () {
        startReplay(trap.moves.map(function (m) { return cellsOf(m.cells); }), "deepest trap");
      }));
    }
  }

  // ---------------------------------------------------------------- drawing and marks

  function drawBoard() {
    $("board").innerHTML = state.svg;
    var tiles = {}, spots = {};
    $("board").querySelectorAll("[data-cell]").forEach(function (g) { tiles[g.dataset.cell] = g; });
    $("board").querySelectorAll("[data-at]").forEach(function (u) { spots[u.dataset.at] = u; });
    state.tiles = tiles;
    state.spots = spots;
    state.changes = [];
  }

  function mark(name, cells) {
    Object.keys(state.tiles || {}).forEach(function (c) { state.tiles[c].classList.remove(name); });
    cells.forEach(function (c) { if (state.tiles[c]) state.tiles[c].classList.add(name); });
  }

  // Marks cells, with a tile or empty: an empty cell's hexagon is raised above its neighbours so its outline shows.
  function markCells(name, cells) {
    mark(name, cells);
    Object.keys(state.spots || {}).forEach(function (c) { state.spots[c].classList.remove(name); });
    cells.forEach(function (c) {
      var spot = state.spots[c];
      if (state.tiles[c] || !spot) return;
      spot.classList.add(name);
      var firstTile = spot.parentNode.querySelector("g.t");
      spot.parentNode.insertBefore(spot, firstTile);
    });
  }

  function showGone(gone) {
    Object.keys(state.tiles || {}).forEach(function (c) { state.tiles[c].classList.toggle("gone", !!gone[c]); });
  }

  function showCounts() {
    var have = {};
    Object.keys(state.grid).forEach(function (c) { var s = state.grid[c]; have[s] = (have[s] || 0) + 1; });
    var symbols = SYMBOLS.filter(function (s) { return s !== "." && (have[s] || STANDARD[s]); });
    var head = "<tr><th></th>" + symbols.map(function (s) { return "<th title='" + tileName(s) +
      "'>" + s.toUpperCase() + "</th>"; }).join("") + "<th>all</th></tr>";
    var total = Object.keys(state.grid).length;
    var row = "<tr><th>here</th>" + symbols.map(function (s) {
      var want = STANDARD[s] !== undefined ? STANDARD[s] : 1;
      var off = (have[s] || 0) !== want && state.dim === 6 ? " class='off'" : "";
      return "<td" + off + ">" + (have[s] || 0) + "</td>";
    }).join("") + "<td>" + total + "</td></tr>";
    var standard = "<tr><th>game</th>" + symbols.map(function (s) {
      return "<td>" + (STANDARD[s] !== undefined ? STANDARD[s] : (Number(s) <= 6 ? 1 : 0)) + "</td>";
    }).join("") + "<td>55</td></tr>";
    $("counts").innerHTML = head + row + standard;
  }

  // ---------------------------------------------------------------- stepping through moves

  function startReplay(moves, title, endMarks) {
    state.replay = {moves: moves, k: 0, title: title, end: endMarks || []};
    $("replaybar").hidden = false;
    showStep(0);
  }

  function showStep(k) {
    var replay = state.replay;
    if (!replay) return;
    var n = replay.moves.length;
    replay.k = Math.max(0, Math.min(n, k));
    var gone = {};
    for (var i = 0; i < replay.k; i++) replay.moves[i].forEach(function (c) { gone[c] = 1; });
    showGone(gone);
    mark("next", replay.k < n ? replay.moves[replay.k] : []);
    mark("held", replay.k === n ? replay.end : []);
    $("step").textContent = replay.title + ": " + (replay.k < n ? "move " + (replay.k + 1) + " of " + n :
      "after move " + n + " of " + n);
    $("step").dataset.k = String(replay.k);
  }

  function stopReplay() {
    if (!state.replay) return;
    state.replay = null;
    $("replaybar").hidden = true;
    showGone({});
    mark("next", []);
    if (state.verdict && state.verdict.stuck) mark("held", cellsOf(state.verdict.stuck));
    if (state.mode === "play" && state.play) drawPosition();
  }

  // ---------------------------------------------------------------- play

  // A game in play: the moves made, the tiles picked, the position as the rule engine sees it (free tiles,
  // legal moves: /api/position, at once) and as a worker judges it (clearable or lost, a hint: /api/play).
  function newPlay() {
    return {moves: [], pick: [], pos: null, pending: false, wantHint: false, judged: null, hint: null, proved: null,
      seq: 0, free: {}};
  }

  // Where play stands, on <body> for scripts and tests to wait on (data-play: "position" while the position
  // after a move is asked, "judging" while a worker judges it, "judged" once the banner says; data-played: the
  // moves of the position shown; data-play-edit: the edit of the board it is on).
  function playState(status) {
    var data = document.body.dataset;
    data.play = status;
    data.played = String(state.play.moves.length);
    data.playEdit = String(state.edits);
  }

  function setMode(mode) {
    state.mode = mode;
    $("mode-edit").classList.toggle("on", mode === "edit");
    $("mode-play").classList.toggle("on", mode === "play");
    $("palette").hidden = $("hint-edit").hidden = mode !== "edit";
    $("play-panel").hidden = mode !== "play";
    $("counts").hidden = mode !== "edit";
    $("board").classList.toggle("play", mode === "play");
    $("detail").hidden = $("explanation").hidden = mode === "play";  // they are about the board, not the game
    stopReplay();
    if (mode === "play") { startPlay(); return; }
    cancel(["play", "position"]);
    state.play = null;
    clearPlayMarks();
    var banner = state.banner || {status: "", text: ""};
    setBanner(banner.status, banner.text);
    if (state.verdict && state.verdict.stuck) mark("held", cellsOf(state.verdict.stuck));
    markCells("change", state.changes || []);
  }

  function clearPlayMarks() {
    showGone({});
    ["pick", "partner", "safe", "losing", "lost", "next", "free", "blocked", "held", "change"].forEach(function (m) { mark(m, []); });
    Object.keys(state.tiles || {}).forEach(function (c) {
      var t = state.tiles[c];
      t.removeAttribute("tabindex");
      t.removeAttribute("role");
      t.removeAttribute("aria-label");
    });
  }

  function startPlay() {
    state.play = newPlay();
    $("played").textContent = "";
    clearPlayMarks();
    markCells("change", []);
    setPlayStatus("", "Click a free tile (bright), then the tile to pair it with (outlined); gold leaves on its own.");
    update([]);
  }

  function setPlayStatus(status, text) {
    var box = $("play-status");
    box.dataset.status = status;
    box.textContent = text;
  }

  function cellList(cells) { return cells.map(function (c) { return c.split(",").map(Number); }); }

  // Ask for the position after `moves`: the marks come at once, the judgement when a worker has it.
  function update(moves, then) {
    var play = state.play;
    play.seq += 1;
    var seq = play.seq;
    play.pick = [];
    play.hint = null;
    play.proved = null;
    play.pending = true;
    playState("position");
    $("play-hint").hidden = true;
    $("hint-list").hidden = true;
    post("position", "/api/position", {text: state.text, moves: moves.map(cellList)}).then(function (reply) {
      if (state.play !== play || seq !== play.seq) return;
      play.pending = false;
      if (!reply.ok) { setPlayStatus("error", reply.data.error); playState("judged"); return; }
      var pos = reply.data;
      if (!pos.legal) { setPlayStatus("illegal", pos.why); drawPosition(); playState("judged"); return; }
      play.moves = moves;
      play.pos = pos;
      play.judged = null;
      play.free = {};
      cellsOf(pos.free).forEach(function (c) { play.free[c] = 1; });
      drawPosition();
      showCounter();
      showPlayed();
      if (then) then();
      if (pos.status === "cleared") {
        setBanner("cleared", "Cleared: every tile is gone, in " + moves.length + " moves.");
        setPlayStatus("cleared", "The board is clear.");
        play.wantHint = false;
        playState("judged");
        return;
      }
      if (pos.status === "stuck") setBanner("lost", "Lost: no legal move is left; " + pos.left + " tiles stay.");
      else setBanner("busy", "Judging this position…");
      playState("judging");
      judge(play, seq, moves);
      if (play.wantHint) { play.wantHint = false; hint(); }  // Hint was asked before this position was in
    }).catch(function (error) {
      if (aborted(error) || state.play !== play || seq !== play.seq) return;
      play.pending = false;
      setPlayStatus("error", String(error));
      playState("judged");
    });
  }

  function judge(play, seq, moves) {
    post("play", "/api/play", {text: state.text, moves: moves.map(cellList)}).then(function (reply) {
      if (state.play !== play || seq !== play.seq) return;
      playState("judged");
      if (!reply.ok) { setBanner("error", reply.data.error); return; }
      var answer = reply.data;
      if (!answer.legal) { setPlayStatus("illegal", answer.why); return; }
      play.judged = answer;
      showPlayed();
      var lost = answer.status === "lost";
      if (answer.status === "clearable") {
        var rest = answer.solution_moves;
        setBanner("clearable", "Solvable from here: " + (rest ? rest + " more move" + (rest === 1 ? "" : "s") +
          " clear it (replayed by the rule engine)" : "the position can still be cleared"));
      } else if (lost) {
        setBanner("lost", "Lost: " + answer.why);
      } else if (answer.status === "cleared") {
        setBanner("cleared", "Cleared: every tile is gone, in " + moves.length + " moves.");
      } else {
        setBanner("unknown", "Unknown from here: " + answer.why);
      }
      if (play.pick.length === 0 && !play.hint) setPlayStatus(answer.status, playLine(answer));
      mark("held", lost ? cellsOf(answer.stuck) : []);
    }).catch(function (error) { if (!aborted(error)) { playState("judged"); setBanner("error", String(error)); } });
  }

  // What the game's state means for the next click (the banner says why).
  function playLine(answer) {
    if (answer.status === "clearable") return "Pick a bright tile, then one outlined to pair it with.";
    if (answer.status !== "lost") return answer.why;
    if (answer.lost_at) return "Move " + answer.lost_at + " lost the game (the banner says why): undo it to try another.";
    return "This board could not be cleared from the start: no move wins.";
  }

  // The position on the board: removed tiles hidden, free ones bright and reachable by Tab, the rest dimmed.
  function drawPosition() {
    var play = state.play;
    if (!play || state.replay) return;
    var gone = {};
    play.moves.forEach(function (cells) { cells.forEach(function (c) { gone[c] = 1; }); });
    showGone(gone);
    Object.keys(state.tiles || {}).forEach(function (c) {
      var t = state.tiles[c];
      var free = !gone[c] && !!play.free[c];
      t.classList.toggle("free", free);
      t.classList.toggle("blocked", !gone[c] && !free);
      if (free) {
        t.setAttribute("tabindex", "0");
        t.setAttribute("role", "button");
        t.setAttribute("aria-label", tileName(state.grid[c]) + " at " + where(c) + ", free");
      } else {
        t.removeAttribute("tabindex");
        t.removeAttribute("role");
        t.removeAttribute("aria-label");
      }
    });
    showPicks();
  }

  function showCounter() {
    var pos = state.play.pos;
    $("count-left").textContent = String(pos.left);
    $("count-tiles").textContent = String(pos.tiles);
    $("count-moves").textContent = String(pos.moves);
    $("count-free").textContent = String(pos.free.length);
    $("count-legal").textContent = pos.count === null ? "many" : String(pos.count);
  }

  // The legal moves that hold every cell of `cells` (none listed: the server judges each move instead).
  function movesWith(cells) {
    var listed = state.play.pos.legal_moves;
    if (!listed) return null;
    return listed.map(cellsOf).filter(function (move) {
      return cells.every(function (c) { return move.indexOf(c) >= 0; });
    });
  }

  function showPicks() {
    var play = state.play;
    mark("pick", play.pick);
    var partners = [], safe = [], losing = [];
    if (play.pick.length) {
      (movesWith(play.pick) || []).forEach(function (move) {
        var verdict = markOf(move);
        move.forEach(function (c) {
          if (play.pick.indexOf(c) >= 0) return;
          if (partners.indexOf(c) < 0) partners.push(c);
          if (verdict === "safe") safe.push(c);
          if (verdict === "losing") losing.push(c);
        });
      });
    }
    mark("partner", partners);
    mark("safe", safe);
    mark("losing", losing);
    mark("next", play.hint || []);
  }

  function pickTile(cell) {
    var play = state.play;
    if (!play || !play.pos || state.replay) return;
    var symbol = state.grid[cell];
    if (!play.free[cell]) {
      setPlayStatus("blocked", tileName(symbol) + " at " + where(cell) + " is blocked: a tile can leave only " +
        "with three empty neighbours in a row.");
      return;
    }
    var at = play.pick.indexOf(cell);
    if (at >= 0) { play.pick.splice(at, 1); showPicks(); return; }
    var chosen = play.pick.concat([cell]);
    var listed = movesWith(chosen);
    if (listed === null) {  // too many moves to list: pick two (five with quintessence) and let the server judge
      var five = chosen.some(function (c) { return state.grid[c] === "x"; });
      if (symbol === state.gold && chosen.length === 1) { playMove([cell]); return; }
      if (chosen.length === (five ? 5 : 2)) { playMove(chosen); return; }
      play.pick = chosen;
      showPicks();
      return;
    }
    var exact = listed.filter(function (move) { return move.length === chosen.length; });
    if (exact.length) { playMove(chosen); return; }
    if (listed.length) {
      play.pick = chosen;
      showPicks();
      setPlayStatus("picked", tileName(symbol) + " at " + where(cell) + " picked: now a tile outlined to pair it with" +
        (play.proved ? " (green: safe, red: losing)." : "."));
      return;
    }
    var alone = movesWith([cell]);
    var before = play.pick.length ? play.pick.map(function (c) { return tileName(state.grid[c]); }).join(", ") +
      " and " + tileName(symbol) + " do not pair. " : "";
    if (!alone.length) {
      play.pick = [];
      showPicks();
      setPlayStatus("nopair", before + tileName(symbol) + " at " + where(cell) +
        " is free but pairs with no free tile now" + (state.play.pos.metal && /[0-9]/.test(symbol) &&
        symbol !== state.play.pos.metal ? " (metal " + state.play.pos.metal + " leaves first)" : "") + ".");
      return;
    }
    play.pick = [cell];
    showPicks();
    setPlayStatus("picked", before + tileName(symbol) + " at " + where(cell) + " picked instead.");
  }

  function playMove(cells) {
    var play = state.play;
    play.pick = [];
    showPicks();
    setPlayStatus("busy", "Move " + (play.moves.length + 1) + ": " + describe(cells) + "…");
    update(play.moves.concat([cells]));
  }

  function describe(cells) {
    return cells.map(function (c) { return tileName(state.grid[c]); }).join(" + ") + " at " +
      cells.map(where).join(" ");
  }

  function showPlayed() {
    var list = $("played");
    list.textContent = "";
    var judged = state.play.judged;
    state.play.moves.forEach(function (cells, i) {
      var item = document.createElement("li");
      item.textContent = describe(cells);
      if (judged && judged.status === "lost" && judged.lost_at === i + 1) item.className = "lost";
      list.appendChild(item);
    });
  }

  function undo() {
    var play = state.play;
    if (!play || !play.moves.length) return;
    setPlayStatus("", "Move " + play.moves.length + " taken back.");
    update(play.moves.slice(0, -1));
  }

  // The proved hint: every legal move marked safe (a solution after it, replayed), losing (a checked
  // certificate) or unknown. One safe move is ringed to play; picking a tile then shows which partners are safe.
  function hint() {
    var play = state.play;
    if (!play) return;
    if (!play.pos || play.pending) {  // a move is still on its way: the hint is of the position after it
      play.wantHint = true;
      setPlayStatus("busy", "The hint comes once the position after this move is in…");
      return;
    }
    if (play.pos.status === "cleared") { setPlayStatus("cleared", "The board is clear: no move is left to hint."); return; }
    var started = performance.now();
    var seq = play.seq;
    setPlayStatus("busy", "Judging every legal move…");
    post("hint", "/api/hint", {text: state.text, moves: play.moves.map(cellList)}).then(function (reply) {
      if (state.play !== play || seq !== play.seq) return;
      if (!reply.ok) { setPlayStatus("error", reply.data.error); return; }
      play.proved = reply.data;
      showHint(reply.data, performance.now() - started);
    }).catch(function (error) { if (!aborted(error)) setPlayStatus("error", String(error)); });
  }

  var MARKS = {safe: "✓ safe", losing: "✗ losing", unknown: "? unknown"};

  function showHint(found, ms) {
    var play = state.play;
    var safe = found.moves.filter(function (m) { return m.mark === "safe"; });
    play.hint = safe.length ? cellsOf(safe[0].cells) : null;
    play.pick = [];
    showPicks();
    $("play-hint").hidden = !play.hint;
    var counts = found.safe + " safe, " + found.losing + " losing" + (found.unknown ? ", " + found.unknown +
      " unknown" : "") + " of " + found.moves.length + " legal moves";
    if (play.hint) {
      setPlayStatus("hint", "Hint: " + describe(play.hint) + " is safe (a solution after it is replayed by the " +
        "rule engine); " + counts + ". Click the tiles ringed in pink, or Play the hint.");
    } else {
      setPlayStatus("nohint", "No safe move: " + counts + ".");
    }
    var list = $("hint-list");
    list.textContent = "";
    list.dataset.ms = String(Math.round(ms));  // from the click to the marks shown; of which the worker's own:
    list.dataset.workerMs = String(Math.round(found.seconds * 1000));
    found.moves.forEach(function (m) {
      var item = document.createElement("li");
      item.className = m.mark;
      item.dataset.cells = cellsOf(m.cells).join(" ");
      var proof = m.mark === "safe" ? "a solution of " + m.solution.length + " more moves after it, replayed" :
        m.mark === "losing" ? m.why + " (" + m.certificate.kind + " certificate checked)" : m.why;
      item.textContent = MARKS[m.mark] + ": " + describe(cellsOf(m.cells)) + " — " + proof;
      item.onmouseenter = function () { mark("next", cellsOf(m.cells)); };
      item.onmouseleave = function () { showPicks(); };
      list.appendChild(item);
    });
    list.hidden = false;
  }

  // What the proved hint says of the move made of ``cells``: "safe", "losing", "unknown" or undefined.
  function markOf(cells) {
    var found = state.play && state.play.proved;
    if (!found) return undefined;
    var key = cells.slice().sort().join(" ");
    var hit = found.moves.filter(function (m) { return cellsOf(m.cells).sort().join(" ") === key; });
    return hit.length ? hit[0].mark : undefined;
  }

  // ---------------------------------------------------------------- the page's controls

  function button(id, label, action) {
    var b = document.createElement("button");
    b.type = "button";
    b.id = id;
    b.className = "act";
    b.textContent = label;
    b.onclick = action;
    return b;
  }

  function para(text, id) { var p = document.createElement("p"); p.textContent = text; if (id) p.id = id; return p; }
  function note(text) { var p = para(text); p.className = "note"; return p; }
  function heading(text) { var h = document.createElement("h3"); h.textContent = text; return h; }

  function paint(cell) {
    var brush = state.brush;
    if (brush === ".") delete state.grid[cell];
    else {
      if (/[1-9]/.test(brush)) {  // each metal once: placing it again moves it
        Object.keys(state.grid).forEach(function (c) { if (state.grid[c] === brush) delete state.grid[c]; });
      }
      state.grid[cell] = brush;
    }
    changed("grid");
  }

  function onBoardClick(event) {
    var tile = event.target.closest("[data-cell]");
    var spot = tile || event.target.closest("[data-at]");
    if (!spot) return;
    var cell = tile ? tile.dataset.cell : spot.dataset.at;
    if (state.mode === "edit") paint(cell);
    else if (tile && !tile.classList.contains("gone")) pickTile(cell);
  }

  function onBoardKey(event) {
    if (event.key !== "Enter" && event.key !== " ") return;
    var tile = event.target.closest && event.target.closest("[data-cell]");
    if (!tile || state.mode !== "play") return;
    event.preventDefault();
    var cell = tile.dataset.cell;
    pickTile(cell);
    var again = state.tiles[cell];  // keep the keyboard where it was
    if (again && again.getAttribute("tabindex") === "0") again.focus();
  }

  function load(text) {
    $("text").value = text;
    changed("text");
  }

  function blank(dim) {
    state.dim = dim;
    state.name = "";
    state.grid = {};
    changed("grid");
  }

  function save(name, type, content) {
    var link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([content], {type: type}));
    link.download = name;
    document.body.appendChild(link);
    link.click();
    link.remove();
  }

  function fileStem() { return (state.name || "board").replace(/[^A-Za-z0-9._-]+/g, "_"); }

  function encodeBoard(text) {
    var bytes = new TextEncoder().encode(text);
    var binary = "";
    bytes.forEach(function (b) { binary += String.fromCharCode(b); });
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function decodeBoard(code) {
    var binary = atob(code.replace(/-/g, "+").replace(/_/g, "/"));
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return new TextDecoder().decode(bytes);
  }

  function share() {
    var url = location.origin + location.pathname + "#board=" + encodeBoard(state.text);
    history.replaceState(null, "", url);
    $("share-link").value = url;
    $("share-link").select();
    if (navigator.clipboard) navigator.clipboard.writeText(url).catch(function () {});
  }

  function setupPalette(icons) {
    SYMBOLS.forEach(function (s) {
      var b = document.createElement("button");
      b.type = "button";
      b.dataset.sym = s;
      b.title = s === "." ? "empty a cell" : NAMES[s] || (METALS[s] ? METALS[s] + " (metal " + s + ")" : "metal " + s);
      b.innerHTML = (icons[s] || "") + "<span>" + (s === "." ? "·" : s.toUpperCase()) + "</span>";
      b.onclick = function () {
        state.brush = s;
        $("palette").querySelectorAll("button").forEach(function (x) { x.classList.toggle("on", x === b); });
      };
      if (s === state.brush) b.classList.add("on");
      $("palette").appendChild(b);
    });
  }

  function typing(event) {
    var t = event.target;
    return t && (t.tagName === "TEXTAREA" || t.tagName === "INPUT" || t.tagName === "SELECT");
  }

  function setup() {
    for (var d = 1; d <= 10; d++) {
      var o = document.createElement("option");
      o.value = o.textContent = String(d);
      if (d === 6) o.selected = true;
      $("side").appendChild(o);
    }
    $("new").onclick = function () { blank(Number($("side").value)); };
    $("board").addEventListener("click", onBoardClick);
    $("board").addEventListener("keydown", onBoardKey);
    $("text").addEventListener("input", function () { changed("text"); });
    $("mode-edit").onclick = function () { setMode("edit"); };
    $("mode-play").onclick = function () { setMode("play"); };
    $("first").onclick = function () { showStep(0); };
    $("prev").onclick = function () { if (state.replay) showStep(state.replay.k - 1); };
    $("next").onclick = function () { if (state.replay) showStep(state.replay.k + 1); };
    $("last").onclick = function () { if (state.replay) showStep(state.replay.moves.length); };
    $("stop-replay").onclick = stopReplay;
    $("undo").onclick = undo;
    $("restart").onclick = function () { if (state.play) startPlay(); };
    $("hint").onclick = hint;
    $("play-hint").onclick = function () { if (state.play && state.play.hint) playMove(state.play.hint); };
    $("download-text").onclick = function () { save(fileStem() + ".txt", "text/plain", state.text); };
    $("download-svg").onclick = function () {
      if (state.drawn) save(fileStem() + ".svg", "image/svg+xml", state.drawn.svg);
    };
    $("share").onclick = share;
    document.addEventListener("keydown", function (e) {
      if (typing(e) || e.altKey || e.metaKey) return;
      if (state.replay) {
        if (e.key === "ArrowRight") showStep(state.replay.k + 1);
        if (e.key === "ArrowLeft") showStep(state.replay.k - 1);
        if (e.key === "Escape") stopReplay();
        return;
      }
      if (state.mode !== "play") return;
      if (e.key === "u" || (e.ctrlKey && e.key === "z")) { e.preventDefault(); undo(); }
      else if (e.key === "h" && !e.ctrlKey) hint();
      else if (e.key === "Escape" && state.play) { state.play.pick = []; showPicks(); }
    });
    Promise.all([
      fetch("/api/boards").then(function (r) { return r.json(); }),
      fetch("/api/palette").then(function (r) { return r.json(); })
    ]).then(function (got) {
      var boards = got[0];
      setupPalette(got[1]);
      state.boards = boards;
      boards.forEach(function (b, i) {
        var o = document.createElement("option");
        o.value = String(i);
        o.textContent = b.name + " (" + b.file + ")";
        $("open").appendChild(o);
      });
      $("open").onchange = function () {
        var chosen = state.boards[Number($("open").value)];
        if (chosen) { load(chosen.text); $("open").value = String(state.boards.indexOf(chosen)); }
      };
      var shared = /^#board=([A-Za-z0-9_-]*)$/.exec(location.hash);
      if (shared) load(decodeBoard(shared[1]));
      else if (boards.length) load(boards[0].text);
      else blank(6);
    });
  }

  setup();
})();
