// The workbench page of `sigmar serve`: plain JavaScript, no build step, nothing loaded from elsewhere.
// The server parses, draws (the suite's own SVG), solves, explains and judges moves; this page keeps the
// board being edited, sends it on every edit (cancelling what is still in flight), and shows the answers.
(function () {
  "use strict";

  var SYMBOLS = [".", "a", "e", "f", "w", "s", "v", "m", "q", "1", "2", "3", "4", "5", "6", "7", "8", "9", "x"];
  var NAMES = {".": "empty", a: "air", e: "earth", f: "fire", w: "water", s: "salt", v: "vitae", m: "mors",
    q: "quicksilver", x: "quintessence"};
  var STANDARD = {a: 8, e: 8, f: 8, w: 8, s: 4, v: 4, m: 4, q: 5};
  var $ = function (id) { return document.getElementById(id); };
  // The server writes a secret into this page; every post carries it, which a page elsewhere cannot read.
  var TOKEN = document.querySelector("meta[name=sigmar-token]").content;

  var state = {
    dim: 6, name: "", grid: {}, svg: "", text: "", boards: [],
    mode: "edit", brush: "a", edits: 0,
    verdict: null, explanation: null,
    replay: null,            // {moves: [[cell...]...], k, title}
    play: {moves: [], pick: [], last: null}
  };
  var inflight = {};         // name -> AbortController

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
    cancel(["verdict", "explain", "play"]);
    stopReplay();
    showCounts();
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
      return verdict.then(function (reply) {
        if (seq !== state.edits) return;
        if (!reply.ok) { setVerdict(seq, "error", reply.data.error); return; }
        showVerdict(seq, reply.data);
      });
    }).catch(function (error) { if (!aborted(error)) setVerdict(seq, "error", String(error)); });
  }

  function setVerdict(seq, status, text) {
    var box = $("verdict");
    box.dataset.seq = String(seq);
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
      return;
    }
    if (answer.status === "unsolvable") {
      var cert = answer.certificate ? answer.certificate.kind : "no";
      setVerdict(seq, "unsolvable", "Unsolvable: " + (REASONS[answer.reason] || answer.reason) +
        " (" + answer.reason + ")");
      detail.appendChild(para(answer.explanation + " [" + cert + " certificate " +
        (answer.checked ? "checked" : "NOT checked") + "]"));
      mark("held", cellsOf(answer.stuck));
      if (answer.stuck && answer.stuck.length) detail.appendChild(note("The stuck set is outlined in black."));
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
    mark("pick", cells);
    box.appendChild(note("The cells it changes are outlined in green."));
    box.appendChild(button("apply-repair", "Apply the repair", function () { load(repair.board); }));
  }

  // ---------------------------------------------------------------- drawing and marks

  function drawBoard() {
    $("board").innerHTML = state.svg;
    var tiles = {};
    $("board").querySelectorAll("[data-cell]").forEach(function (g) { tiles[g.dataset.cell] = g; });
    state.tiles = tiles;
  }

  function mark(name, cells) {
    Object.keys(state.tiles || {}).forEach(function (c) { state.tiles[c].classList.remove(name); });
    cells.forEach(function (c) { if (state.tiles[c]) state.tiles[c].classList.add(name); });
  }

  function showGone(gone) {
    Object.keys(state.tiles || {}).forEach(function (c) { state.tiles[c].classList.toggle("gone", !!gone[c]); });
  }

  function showCounts() {
    var have = {};
    Object.keys(state.grid).forEach(function (c) { var s = state.grid[c]; have[s] = (have[s] || 0) + 1; });
    var symbols = SYMBOLS.filter(function (s) { return s !== "." && (have[s] || STANDARD[s]); });
    var head = "<tr><th></th>" + symbols.map(function (s) { return "<th title='" + (NAMES[s] || "metal " + s) +
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
  }

  // ---------------------------------------------------------------- play

  function setMode(mode) {
    state.mode = mode;
    $("mode-edit").classList.toggle("on", mode === "edit");
    $("mode-play").classList.toggle("on", mode === "play");
    $("palette").hidden = $("hint-edit").hidden = mode !== "edit";
    $("play-panel").hidden = mode !== "play";
    $("counts").hidden = mode !== "edit";
    stopReplay();
    state.play = {moves: [], pick: [], last: null};
    $("played").textContent = "";
    showGone({});
    mark("pick", []);
    mark("lost", []);
    setPlayStatus("", "Click two free tiles that pair to remove them (gold: click it twice).");
  }

  function setPlayStatus(status, text) {
    var box = $("play-status");
    box.dataset.status = status;
    box.textContent = text;
  }

  function pickTile(cell) {
    var pick = state.play.pick;
    var symbol = state.grid[cell];
    if (pick.length === 1 && pick[0] === cell) { tryMove([cell]); return; }  // gold alone
    if (pick.indexOf(cell) >= 0) return;
    pick.push(cell);
    mark("pick", pick);
    var five = pick.some(function (c) { return state.grid[c] === "x"; }) || symbol === "x";
    if ((!five && pick.length === 2) || pick.length === 5) tryMove(pick.slice());
  }

  function cellList(cells) { return cells.map(function (c) { return c.split(",").map(Number); }); }

  function tryMove(cells) {
    var moves = state.play.moves.concat([cells]);
    judge(moves, cells);
  }

  function judge(moves, newest) {
    state.play.pick = [];
    mark("pick", []);
    setPlayStatus("busy", "Judging the move…");
    post("play", "/api/play", {text: state.text, moves: moves.map(cellList)}).then(function (reply) {
      if (!reply.ok) { setPlayStatus("error", reply.data.error); return; }
      var answer = reply.data;
      if (!answer.legal) { setPlayStatus("illegal", answer.why); return; }
      state.play.moves = moves;
      state.play.last = answer;
      showPlayed();
      var lost = answer.status === "lost";
      var text = answer.why + (lost && answer.lost_at ? " (move " + answer.lost_at + " lost the game)" : "");
      setPlayStatus(answer.status, text);
      mark("held", lost ? cellsOf(answer.stuck) : []);
    }).catch(function (error) { if (!aborted(error)) setPlayStatus("error", String(error)); });
  }

  function showPlayed() {
    var gone = {};
    var list = $("played");
    list.textContent = "";
    var last = state.play.last;
    state.play.moves.forEach(function (cells, i) {
      cells.forEach(function (c) { gone[c] = 1; });
      var item = document.createElement("li");
      item.textContent = cells.map(function (c) { return NAMES[state.grid[c]] || "metal " + state.grid[c]; })
        .join(" + ") + " at " + cells.map(function (c) { return "[" + c.replace(",", ", ") + "]"; }).join(" ");
      if (last && last.status === "lost" && last.lost_at === i + 1) item.className = "lost";
      list.appendChild(item);
    });
    showGone(gone);
    mark("next", []);
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

  function setup() {
    SYMBOLS.forEach(function (s) {
      var b = document.createElement("button");
      b.type = "button";
      b.dataset.sym = s;
      b.textContent = s === "." ? "·" : s.toUpperCase();
      b.title = NAMES[s] || "metal " + s;
      b.onclick = function () {
        state.brush = s;
        $("palette").querySelectorAll("button").forEach(function (x) { x.classList.toggle("on", x === b); });
      };
      if (s === state.brush) b.classList.add("on");
      $("palette").appendChild(b);
    });
    for (var d = 1; d <= 10; d++) {
      var o = document.createElement("option");
      o.value = o.textContent = String(d);
      if (d === 6) o.selected = true;
      $("side").appendChild(o);
    }
    $("new").onclick = function () { blank(Number($("side").value)); };
    $("board").addEventListener("click", onBoardClick);
    $("text").addEventListener("input", function () { changed("text"); });
    $("mode-edit").onclick = function () { setMode("edit"); };
    $("mode-play").onclick = function () { setMode("play"); };
    $("first").onclick = function () { showStep(0); };
    $("prev").onclick = function () { if (state.replay) showStep(state.replay.k - 1); };
    $("next").onclick = function () { if (state.replay) showStep(state.replay.k + 1); };
    $("last").onclick = function () { if (state.replay) showStep(state.replay.moves.length); };
    $("stop-replay").onclick = stopReplay;
    $("undo").onclick = function () {
      if (!state.play.moves.length) return;
      var moves = state.play.moves.slice(0, -1);
      if (!moves.length) { setMode("play"); return; }
      judge(moves);
    };
    $("hint").onclick = function () {
      var last = state.play.last;
      var hint = last ? last.hint : (state.verdict && state.verdict.moves ? state.verdict.moves[0] : null);
      if (!hint) { setPlayStatus("nohint", "No hint: no move keeps this position clearable."); return; }
      mark("next", cellsOf(hint.cells));
      setPlayStatus("hint", "Hint: " + hint.cells.map(function (c) { return "[" + c.join(", ") + "]"; }).join(" and ") +
        " keeps the board clearable.");
    };
    $("download-text").onclick = function () { save(fileStem() + ".txt", "text/plain", state.text); };
    $("download-svg").onclick = function () {
      if (state.drawn) save(fileStem() + ".svg", "image/svg+xml", state.drawn.svg);
    };
    $("share").onclick = share;
    document.addEventListener("keydown", function (e) {
      if (!state.replay || e.target === $("text")) return;
      if (e.key === "ArrowRight") showStep(state.replay.k + 1);
      if (e.key === "ArrowLeft") showStep(state.replay.k - 1);
    });
    fetch("/api/boards").then(function (r) { return r.json(); }).then(function (boards) {
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
