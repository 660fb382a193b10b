"use strict";
// The film player: the Watch page's component and the page it saves, both playing the
// arguments that the engine's film module builds (film_args).
//
// plotly draws the figure once: points, axes, the objective and stage-value charts. Each frame
// then costs a few milliseconds instead of a full plotly redraw: the decision function and its
// level lines are painted on the canvas beneath the plot, the points' colours are set on
// plotly's markers, the progress markers are painted on the canvas above it, and the numbers
// under the film are those of the frame on screen.
//
// The same drawing makes the pictures the player saves (a frame as PNG, the film as an
// animated GIF), and the player saves itself with its film as one page that plays offline.
//
// The film is told in words as well (docs/accessibility.md): the figure is one image to a
// screen reader, named by what it draws (args.label), described by the frame on screen in a
// sentence (args.sentences), which a live region reads out as the frame changes. Every
// control works by keyboard, and with the system's "reduce motion" setting nothing plays by
// itself: Play shows one frame a press.

const byId = (id) => document.getElementById(id);
const plot = byId("plot");
const under = byId("under");
const over = byId("over");
const scrub = byId("scrub");
const speedBox = byId("speed");
const loopBox = byId("loop");

// What the page shows, read by the browser tests and benchmarks/app_speed.py: the film's id,
// the frame on screen, whether Play runs, when each frame of the last pass of Play was drawn,
// how many films this player has drawn, Play's speed and loop, and the theme it follows.
// Whether the system asks for reduced motion, too.
const film = (window.film = { id: null, frame: 0, playing: false, drawn: [], films: 0,
  speed: 1, loop: false, dark: false, reduced: false });

let args = null;           // the latest arguments from the page
let figureJson = null;     // the figure drawn now (a new one means a new film)
let themeSeen = null;      // the page's theme the figure is drawn in
let jumpSeen = null;       // the page's last request to jump (its details slider moved)
let settingsSeen = null;   // the page's last speed and loop (from the session or a link)
const settingsReported = new Set();  // every speed and loop this player has reported
const settingsOf = (source) => `${source.speed} ${source.loop}`;
let fill = null;           // int8 (frames, ny, nx): f * fill_steps on the display grid
let pointColors = null;    // uint8 (frames, n): each point's colour, an index into point_colors
const tile = document.createElement("canvas");  // the grid, one pixel per grid point
// This page saved as a file (see savePage): it plays the film it holds, without Streamlit.
const standalone = window.standaloneFilm || null;

function send(type, data) {
  if (!standalone) window.parent.postMessage({ isStreamlitMessage: true, type, ...data }, "*");
}

function int8(bytes) {
  return new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

// The frames' bytes come zlib-compressed (by the engine's film module): a ninth of their size.
async function inflate(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function lastFrame() {
  return args.states.length - 1;
}

// -- the theme: the page's colours, and the figure's on a dark page ------------------------

const LIGHT = { base: "light", backgroundColor: "#ffffff", textColor: "#31333f",
  primaryColor: "#0072b2" };
let theme = LIGHT;

function applyTheme(next) {
  theme = { ...LIGHT, ...(next || {}) };
  film.dark = theme.base === "dark";
  const root = document.documentElement.style;
  root.setProperty("--background", theme.backgroundColor);
  root.setProperty("--text", theme.textColor);
  root.setProperty("--muted", film.dark ? "#a3a8b8" : "#6b6f7b");
  root.setProperty("--border", film.dark ? "#4b4f5c" : "#c8c9cf");
  root.setProperty("--accent", film.dark ? "#56b4e9" : "#0072b2");
  root.setProperty("--better", film.dark ? "#3dd56d" : "#09823b");
  root.setProperty("--worse", film.dark ? "#ff6c6c" : "#c62828");
}

// The figure as drawn in the page's theme: on a dark page the colours that would vanish are
// swapped (the palette's DARK_COLORS), and the axes and text take the page's text colour.
function themedFigure() {
  let text = args.figure;
  if (film.dark) {
    for (const [light, dark] of Object.entries(args.dark_colors)) {
      text = text.replaceAll(JSON.stringify(light), JSON.stringify(dark));
    }
  }
  const figure = JSON.parse(text);
  const layout = figure.layout;
  layout.font = { ...layout.font, color: theme.textColor };
  if (film.dark) {
    for (const name of Object.keys(layout)) {
      if (/^[xy]axis\d*$/.test(name)) {
        layout[name] = { ...layout[name], color: "#c9ccd6", gridcolor: "#2a2e38" };
      }
    }
  }
  return figure;
}

// The decision function's colours: on a light page the figures' own fill (from white at
// f = 0 to the class colours over white); on a dark one from the page's background to the
// class colours at dark_fill_opacity over it.
let darkFill = null;  // [background, its levels]
function fillColors() {
  if (!film.dark) return args.fill_colors;
  if (!darkFill || darkFill[0] !== theme.backgroundColor) {
    const probe = document.createElement("canvas").getContext("2d");
    probe.fillStyle = theme.backgroundColor;
    probe.fillRect(0, 0, 1, 1);
    const background = probe.getImageData(0, 0, 1, 1).data;
    const limit = (args.fill_colors.length / 3 - 1) / 2;
    const levels = new Uint8Array(args.fill_colors.length);
    for (let level = -limit; level <= limit; level++) {
      const end = args.fill_ends[level < 0 ? 0 : 1];
      const weight = args.dark_fill_opacity * Math.abs(level) / limit;
      for (let c = 0; c < 3; c++) {
        levels[3 * (level + limit) + c] = Math.round(
          background[c] + weight * (end[c] - background[c]));
      }
    }
    darkFill = [theme.backgroundColor, levels];
  }
  return darkFill[1];
}

function lineColor() {
  return film.dark ? args.dark_colors[args.line_color] : args.line_color;
}

// -- drawing one frame ------------------------------------------------------------------

function show(k) {
  film.frame = k;
  byId("title").textContent = args.titles[k];
  scrub.value = String(k);
  scrub.setAttribute("aria-valuetext", `frame ${k + 1} of ${args.states.length}`);
  byId("where").textContent = `state ${args.states[k]} · frame ${k + 1} of ${args.states.length}`;
  byId("sentence").textContent = sentence(k);
  showNumbers(k);
  paint();
}

// -- the film in words: frame k's sentence, read out as the frame changes ------------------

function sentence(k) {
  return (args.sentences || args.titles)[k];  // (a film saved before it had sentences)
}

// While Play runs a sentence is read out only for a frame the film holds (the start and
// the end of each stage of the outer parameter: Play's pace, frame_ms, stays on them) and at
// most one every SPEAK_EVERY_MS: a screen reader needs a few seconds for a sentence, and a
// sentence for each of eight frames a second would bury it. Step, the scrubber, Pause, the
// end of Play and a jump asked for by the page say the frame at once.
const SPEAK_EVERY_MS = 1500;
// The scrubber dragged by the mouse: the frame it rests on, after this pause.
const SCRUB_SETTLE_MS = 250;
let spokenAt = -Infinity;
let heldFrames = [];   // per frame: is it one that Play says?
let scrubbing = null;  // the scrubber's pending sentence

function holdFrames() {
  const shortest = Math.min(...args.frame_ms);
  heldFrames = args.frame_ms.map((ms) => ms > shortest);
  // a film of one pace (Newton's steps, a fit) says every frame, SPEAK_EVERY_MS apart
  if (!heldFrames.some(Boolean)) heldFrames = heldFrames.map(() => true);
}

function announce(k, playing = false) {
  const now = performance.now();
  if (playing && (!heldFrames[k] || now - spokenAt < SPEAK_EVERY_MS)) return;
  clearTimeout(scrubbing);
  spokenAt = now;
  byId("said").textContent = sentence(k);
}

// The numbers of frame k, in the cells made for the film (makeNumbers).
function showNumbers(k) {
  const cells = byId("numbers").children;
  args.numbers.forEach((number, i) => {
    const [value, note] = cells[i].querySelectorAll(".value, .note");
    value.textContent = number.values[k];
    if (number.notes) {
      note.textContent = number.notes[k];
      note.className = `note ${number.better[k] === null ? "" : number.better[k] ? "better" : "worse"}`;
    }
  });
}

function makeNumbers() {
  const box = byId("numbers");
  box.style.setProperty("--cells", String(args.numbers.length));
  box.replaceChildren(...args.numbers.map((number) => {
    const cell = document.createElement("div");
    cell.className = "cell";
    if (number.help) cell.title = number.help;
    for (const part of ["label", "value", "note"]) {
      const text = document.createElement("div");
      text.className = part;
      if (part === "label") text.textContent = number.label;
      cell.append(text);
    }
    return cell;
  }));
}

// Each value and note as tall as its tallest on any frame at the numbers' present width: a
// value wrapping onto a second line on one frame pushed everything below it down.
const MEASURED = 6;  // the longest texts of a number measured (its longest is its tallest)

function reserveNumbers() {
  const longest = (texts) => [...new Set(texts)].sort((a, b) => b.length - a.length)
    .slice(0, MEASURED);
  const cells = byId("numbers").children;
  args.numbers.forEach((number, i) => {
    for (const [part, texts] of [["value", number.values], ["note", number.notes || [""]]]) {
      const element = cells[i].querySelector(`.${part}`);
      element.style.minHeight = "";
      let tallest = 0;
      for (const text of longest(texts)) {
        element.textContent = text;
        tallest = Math.max(tallest, element.offsetHeight);
      }
      element.style.minHeight = `${tallest}px`;
    }
  });
  showNumbers(film.frame);
}

function canvasFor(canvas) {
  const width = plot.clientWidth;
  const height = plot.clientHeight;
  const ratio = window.devicePixelRatio || 1;
  if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
  }
  const ctx = canvas.getContext("2d");
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, width, height);
  return ctx;
}

function paint() {
  if (!plot._fullLayout || !plot._fullLayout.xaxis || !args || film.frame > lastFrame()) return;
  paintBeneath(canvasFor(under), plot, film.frame);
  colorPoints(plot, film.frame);
  paintAbove(canvasFor(over), plot, film.frame);
}

// What goes beneath a drawn figure `gd` (the plot on screen, or one drawn for a picture):
// the decision function of frame k and its level lines.
function paintBeneath(ctx, gd, k) {
  const layout = gd._fullLayout;
  if (fill) paintDecision(ctx, layout.xaxis, layout.yaxis, k);
}

// What goes above it: the progress markers on the objective and stage charts.
function paintAbove(ctx, gd, k) {
  const layout = gd._fullLayout;
  for (const chart of args.progress) paintMarker(ctx, layout[chart.x], layout[chart.y],
    args.steps[k], chart.values[k]);
}

// The points' colours are set on plotly's own markers: a restyle of marker.color recomputes
// the whole figure (about 40 ms), a style per marker costs well under one. plotly draws the
// markers anew after a zoom or a resize, and paint() then colours them again.
function colorPoints(gd, k) {
  const trace = gd.calcdata && gd.calcdata[args.points_trace];
  if (!trace || !trace[0].node3) return;
  const markers = trace[0].node3.node().querySelectorAll("path.point");
  const n = args.n_points;
  const palette = film.dark
    ? args.point_colors.map((color) => args.dark_colors[color] || color) : args.point_colors;
  for (let i = 0; i < markers.length && i < n; i++) {
    markers[i].style.fill = palette[pointColors[k * n + i]];
  }
}

// One-vs-rest (args.classes = k > 2): the frame holds the k problems' f, one grid after the
// other; a node takes the region colour of the class whose f is largest.
function paintClasses(image, frame, nx, ny, classes) {
  const size = nx * ny;
  for (let row = 0; row < ny; row++) {
    const source = (ny - 1 - row) * nx;
    for (let i = 0; i < nx; i++) {
      let best = 0;
      for (let c = 1; c < classes; c++) {
        if (frame[c * size + source + i] > frame[best * size + source + i]) best = c;
      }
      const at = 4 * (row * nx + i);
      image.data[at] = args.region_colors[3 * best];
      image.data[at + 1] = args.region_colors[3 * best + 1];
      image.data[at + 2] = args.region_colors[3 * best + 2];
      image.data[at + 3] = 255;
    }
  }
}

function paintDecision(ctx, xaxis, yaxis, k) {
  const { nx, ny, x, y } = args.grid;
  const classes = args.classes || 1;  // (a binary film has one f per node)
  const values = fill.subarray(k * classes * nx * ny, (k + 1) * classes * nx * ny);
  const colors = fillColors();
  const limit = (colors.length / 3 - 1) / 2;
  tile.width = nx;
  tile.height = ny;
  const tileCtx = tile.getContext("2d");
  const image = tileCtx.createImageData(nx, ny);
  if (classes > 1) {
    paintClasses(image, values, nx, ny, classes);
  } else {
    for (let row = 0; row < ny; row++) {
      const source = (ny - 1 - row) * nx;  // y grows upwards, image rows downwards
      for (let i = 0; i < nx; i++) {
        const level = 3 * (values[source + i] + limit);
        const at = 4 * (row * nx + i);
        image.data[at] = colors[level];
        image.data[at + 1] = colors[level + 1];
        image.data[at + 2] = colors[level + 2];
        image.data[at + 3] = 255;
      }
    }
  }
  tileCtx.putImageData(image, 0, 0);

  const dx = (x[1] - x[0]) / (nx - 1);
  const dy = (y[1] - y[0]) / (ny - 1);
  const px = (v) => xaxis._offset + xaxis.l2p(v);
  const py = (v) => yaxis._offset + yaxis.l2p(v);
  ctx.save();
  ctx.beginPath();
  ctx.rect(xaxis._offset, yaxis._offset, xaxis._length, yaxis._length);
  ctx.clip();
  // Each grid value is a pixel centred on its grid point; smoothing interpolates between them.
  ctx.imageSmoothingEnabled = true;
  const left = px(x[0] - dx / 2);
  const top = py(y[1] + dy / 2);
  ctx.drawImage(tile, left, top, px(x[1] + dx / 2) - left, py(y[0] - dy / 2) - top);
  const X = (i) => px(x[0] + i * dx);
  const Y = (j) => py(y[0] + j * dy);
  ctx.lineWidth = 2;
  ctx.lineJoin = "round";
  if (classes > 1) {
    // each problem's boundary f = 0 in its class's colour
    for (let c = 0; c < classes; c++) {
      ctx.beginPath();
      levelLine(ctx, values.subarray(c * nx * ny, (c + 1) * nx * ny), nx, ny, 0, X, Y);
      ctx.strokeStyle = args.class_lines[c];
      ctx.stroke();
    }
  } else {
    ctx.beginPath();
    for (const level of args.lines) levelLine(ctx, values, nx, ny, level * args.fill_steps, X, Y);
    ctx.strokeStyle = lineColor();
    ctx.stroke();
  }
  ctx.restore();
}

// Marching squares: the segments where the grid values cross `level`, linearly interpolated
// along the cell edges; a saddle cell is split by the value at its centre.
function levelLine(ctx, v, nx, ny, level, X, Y) {
  const at = (p, q) => (level - p) / (q - p);
  const segment = (p, q) => {
    ctx.moveTo(p[0], p[1]);
    ctx.lineTo(q[0], q[1]);
  };
  for (let j = 0; j < ny - 1; j++) {
    for (let i = 0; i < nx - 1; i++) {
      const a = v[j * nx + i];              // corners: a bottom left, b bottom right,
      const b = v[j * nx + i + 1];          // c top right, d top left
      const c = v[(j + 1) * nx + i + 1];
      const d = v[(j + 1) * nx + i];
      const sa = a > level;
      const sb = b > level;
      const sc = c > level;
      const sd = d > level;
      if (sa === sb && sb === sc && sc === sd) continue;
      const bottom = sa !== sb ? [X(i + at(a, b)), Y(j)] : null;
      const right = sb !== sc ? [X(i + 1), Y(j + at(b, c))] : null;
      const topEdge = sc !== sd ? [X(i + 1 - at(c, d)), Y(j + 1)] : null;
      const leftEdge = sd !== sa ? [X(i), Y(j + 1 - at(d, a))] : null;
      if (bottom && right && topEdge && leftEdge) {
        if ((a + b + c + d) / 4 > level === sa) {
          segment(bottom, right);
          segment(topEdge, leftEdge);
        } else {
          segment(bottom, leftEdge);
          segment(right, topEdge);
        }
      } else {
        const ends = [bottom, right, topEdge, leftEdge].filter(Boolean);
        segment(ends[0], ends[1]);
      }
    }
  }
}

function paintMarker(ctx, xaxis, yaxis, xValue, yValue) {
  if (!xaxis || !yaxis || xValue === null || yValue === null) return;
  const px = xaxis._offset + xaxis.c2p(xValue);
  let py = yaxis._offset + yaxis.c2p(yValue);
  // A log axis has no place for 0 (QN-S3VM's α = 0 stage, cS3VM's last γ = 0): the marker
  // sits on the axis's floor, in the band the figure labels "α = 0".
  if (yaxis.type === "log" && yValue <= 0) py = yaxis._offset + yaxis._length;
  if (!Number.isFinite(px) || !Number.isFinite(py)) return;
  ctx.beginPath();
  ctx.arc(px, py, 5.5, 0, 2 * Math.PI);
  ctx.fillStyle = theme.textColor;
  ctx.fill();
}

// -- sizing: the boundary plot at the data's aspect ratio ----------------------------------

const SMALLEST = 320;  // px: the figure's least height
// px: what stands above the film on the page (Streamlit's header, the page's controls), as
// measured, but at most this much: below a tall header the film is scrolled to
const ABOVE_MOST = 260;

// The figure's height that gives the boundary plot (equal scales on its axes) the whole width
// of its column, unless the window is too low for it: then the film still fits on one screen
// below the page's header.
let boundary = null;  // the boundary plot's share of the figure's width, and the margins

function wantedHeight(width) {
  const { share, margin } = boundary;
  return (width - margin.l - margin.r) * share / args.aspect + margin.t + margin.b;
}

// Below this width (CSS px) the charts of the objective and the stage value stand under the
// boundary plot, across the whole width: beside it, at 320 px, they squeezed the boundary and
// cut their own titles ("T (outer parame"; WCAG 1.4.10, reflow).
const STACK_BELOW = 600;
const CHART_HEIGHT = 120;  // px: each stacked chart's plotting area
const CHART_GAP = 64;      // px above each: the tick labels of the plot above, and its title

function stacked(width) {
  return width < STACK_BELOW;
}

// The stacked figure's height: the boundary plot at the data's aspect ratio (at most most of
// the window's height), and the two charts under it. The page scrolls down to them.
function stackedHeight(width, screenHeight) {
  const { margin } = boundary;
  const gap = CHART_GAP + (arranged.xTitle ? 24 : 0);  // (room for the axis's title, "PC 1")
  const plotWidth = width - margin.l - margin.r;
  const highest = Math.max(SMALLEST - margin.t - margin.b, 0.75 * screenHeight);
  return Math.round(Math.min(plotWidth / args.aspect, highest) + 2 * (gap + CHART_HEIGHT) +
    margin.t + margin.b);
}

// The figure's own arrangement (side by side), kept when a film is drawn: its axes' domains
// and where its charts' titles stand (engine/figures/film.py names them).
let arranged = null;
const AXES = ["xaxis", "yaxis", "xaxis2", "yaxis2", "xaxis3", "yaxis3"];
const CHART_TITLES = { yaxis2: "yaxis2 title", yaxis3: "yaxis3 title" };

function keepArrangement(layout) {
  arranged = { domains: {}, titles: {}, xTitle: Boolean(layout.xaxis.title &&
    (layout.xaxis.title.text || typeof layout.xaxis.title === "string")) };
  for (const axis of AXES) arranged.domains[axis] = [...layout[axis].domain];
  (layout.annotations || []).forEach((note, i) => {
    if (Object.values(CHART_TITLES).includes(note.name)) {
      arranged.titles[note.name] = { index: i, x: note.x, y: note.y };
    }
  });
}

// The layout's changes (as Plotly.relayout takes them) that arrange the figure at this size:
// side by side as built, or, narrower than STACK_BELOW, the charts under the boundary plot.
function arrangement(width, height) {
  const changes = {};
  const domains = { ...arranged.domains };
  const titleY = {};
  if (stacked(width)) {
    const { margin } = boundary;
    const area = height - margin.t - margin.b;
    const chart = CHART_HEIGHT / area;
    const gap = (CHART_GAP + (arranged.xTitle ? 24 : 0)) / area;
    for (const axis of ["xaxis", "xaxis2", "xaxis3"]) domains[axis] = [0, 1];
    domains.yaxis3 = [0, chart];
    domains.yaxis2 = [chart + gap, 2 * chart + gap];
    domains.yaxis = [2 * (chart + gap), 1];
    titleY.yaxis2 = domains.yaxis2[1];
    titleY.yaxis3 = domains.yaxis3[1];
  }
  for (const axis of AXES) changes[`${axis}.domain`] = domains[axis];
  for (const [axis, name] of Object.entries(CHART_TITLES)) {
    const title = arranged.titles[name];
    if (!title) continue;
    changes[`annotations[${title.index}].x`] = axis in titleY ? 0.5 : title.x;
    changes[`annotations[${title.index}].y`] = axis in titleY ? titleY[axis] : title.y;
  }
  return changes;
}

// The same changes made on a layout object, before plotly draws it.
function arrange(layout, width, height) {
  for (const [path, value] of Object.entries(arrangement(width, height))) {
    const [, axis, note, field] = path.match(/^(?:(\w+)\.domain|annotations\[(\d+)\]\.([xy]))$/);
    if (axis) layout[axis] = { ...layout[axis], domain: value };
    else layout.annotations[Number(note)] = { ...layout.annotations[Number(note)], [field]: value };
  }
  return layout;
}

function fittedHeight(width) {
  let screenHeight = window.innerHeight;
  let above = 0;
  if (!standalone) {
    screenHeight = window.screen.availHeight;
    above = ABOVE_MOST;
    try {  // the page's window and this frame's place in it (served from the same origin)
      screenHeight = window.top.innerHeight;
      above = window.frameElement.getBoundingClientRect().top + window.top.scrollY;
    } catch (error) {
      // another origin: the screen's height and a header of the usual size
    }
  }
  if (stacked(width)) return stackedHeight(width, screenHeight);
  // (the Save row, under the numbers, is left out: opening it moves nothing above it)
  const chrome = byId("title").offsetHeight + byId("controls").offsetHeight +
    byId("motion").offsetHeight + byId("numbers").offsetHeight + 8;
  const highest = Math.max(SMALLEST, screenHeight - Math.min(above, ABOVE_MOST) - chrome);
  return Math.round(Math.min(Math.max(wantedHeight(width), SMALLEST), highest));
}

// The figure's width: its column's (plotly's own "responsive" resizing kept the first width
// when the window grew, as it does when the page's sidebar goes for presentation mode).
function stageWidth() {
  return byId("stage").clientWidth;
}

function sendHeight() {
  send("streamlit:setFrameHeight", { height: document.body.scrollHeight });
}

function refit() {
  if (!plot._fullLayout || !args) return;
  reserveNumbers();  // (their columns' width changed)
  const width = stageWidth();
  const height = fittedHeight(width);
  const layout = plot._fullLayout;
  if (Math.abs(width - layout.width) > 1 || Math.abs(height - layout.height) > 2) {
    Plotly.relayout(plot, { width, height, ...arrangement(width, height) }).then(sendHeight);
  } else {
    sendHeight();
  }
}

window.addEventListener("resize", refit);
// Whatever changes the player's height (the Save row's links appearing when their files are
// made, a note of a number wrapping, the reduced-motion line) resizes its frame on the page:
// nothing is cut off below.
new ResizeObserver(() => {
  if (args) sendHeight();
}).observe(document.body);

// -- playing ----------------------------------------------------------------------------

let animation = null;

// How long frame k stays on screen while playing (ms): its time at 1x (frame_ms, paced by
// the solver's outer steps: engine.film.frame_durations) over Play's speed.
function frameTime(k) {
  return args.frame_ms[k] / film.speed;
}

function play() {
  if (film.playing) return;
  if (film.reduced) {  // the system asks for reduced motion: one frame a press, no motion
    goTo(film.frame >= lastFrame() ? 0 : film.frame + 1);
    return;
  }
  if (film.frame >= lastFrame()) {
    show(0);
    announce(0, true);
  }
  film.playing = true;
  film.drawn = [performance.now()];
  let shownAt = performance.now();
  const tick = (now) => {
    if (!film.playing) return;
    if (film.frame >= lastFrame()) {
      // looping: the result stays on screen for hold_ms, then the film starts over
      if (!film.loop) {  // the loop was switched off meanwhile
        stop();
        report(true);
        return;
      }
      if (now - shownAt >= args.hold_ms) {
        show(0);
        announce(0, true);
        shownAt = now;
        film.drawn = [performance.now()];
      }
    } else if (now - shownAt >= frameTime(film.frame)) {
      // Frames are due on the clock, each frameTime after the one before, not after it was
      // drawn: the screen refreshes every ~16.7 ms, and waiting for a full frame time after
      // a refresh would often wait for one more. Faster than the screen, Play skips to the
      // frame due; at 1x or slower it shows every frame.
      let next = film.frame;
      let due = shownAt;
      do {
        due += frameTime(next);
        next += 1;
      } while (film.speed > 1 && next < lastFrame() && now - due >= frameTime(next));
      shownAt = Math.max(due, now - frameTime(next));
      show(next);
      film.drawn.push(performance.now());
      announce(next, film.frame < lastFrame() || film.loop);
      if (film.frame >= lastFrame() && !film.loop) {
        stop();
        report(true);  // the page's details follow the film to its last state
        return;
      }
    }
    animation = requestAnimationFrame(tick);
  };
  animation = requestAnimationFrame(tick);
}

function stop() {
  film.playing = false;
  if (animation !== null) cancelAnimationFrame(animation);
  animation = null;
}

// What the player tells the page: the state on screen when the film stopped on one (the page
// shows its details; null when only the speed or the loop changed), and Play's speed and
// loop (the page keeps them in the share link). The count makes every report a new value:
// Streamlit calls the page back only when the value changes, and the user may come back to a
// state reported before (after moving the page's slider, say).
let reports = 0;
let reported = null;  // the state in the last report
// When each state was last reported: the page's details slider echoes a report as a move of
// its own, up to a rerun or two later, and by then the user may have stepped on.
const reportedAt = new Map();
const ECHO_MS = 2000;
function report(withState) {
  reports += 1;
  settingsReported.add(settingsOf(film));
  if (withState) {
    reported = args.states[film.frame];
    reportedAt.set(reported, performance.now());
  }
  send("streamlit:setComponentValue", {
    value: { film: args.film, state: withState ? args.states[film.frame] : null,
      speed: film.speed, loop: film.loop, report: reports },
    dataType: "json",
  });
}

function pause() {
  stop();
  announce(film.frame);
  report(true);
}

function goTo(k) {
  stop();
  show(Math.min(Math.max(k, 0), lastFrame()));
  announce(film.frame);
  report(true);
}

byId("play").addEventListener("click", play);
byId("pause").addEventListener("click", pause);
byId("back").addEventListener("click", () => goTo(film.frame - 1));
byId("forward").addEventListener("click", () => goTo(film.frame + 1));
scrub.addEventListener("input", () => {
  stop();
  show(Number(scrub.value));
  clearTimeout(scrubbing);
  scrubbing = setTimeout(() => announce(film.frame), SCRUB_SETTLE_MS);
});
scrub.addEventListener("change", () => report(true));
speedBox.addEventListener("change", () => {
  film.speed = Number(speedBox.value);
  report(false);
});
loopBox.addEventListener("change", () => {
  film.loop = loopBox.checked;
  report(false);
});

// The keyboard, once the player has the focus (a click on it, or Tab to a control): space
// plays or pauses, the arrows step, Home and End go to the ends (the controls' tooltips say
// so). The speed box keeps its own keys; a focused button other than Play and Pause, the loop
// box and a link keep the space, which presses them (Tab, then space, is how a keyboard
// presses a button), and Enter presses every button.
const KEYS = {
  " ": () => (film.playing ? pause() : play()),
  ArrowLeft: () => goTo(film.frame - 1),
  ArrowRight: () => goTo(film.frame + 1),
  Home: () => goTo(0),
  End: () => goTo(lastFrame()),
};

function keepsItsSpace(target) {
  return target === loopBox || target.tagName === "A" ||
    (target.tagName === "BUTTON" && target.id !== "play" && target.id !== "pause");
}

let spaceTaken = false;  // the space's keydown played or paused: its keyup does nothing
document.addEventListener("keydown", (event) => {
  const action = KEYS[event.key];
  if (!action || !args || event.target === speedBox || event.altKey || event.ctrlKey ||
      event.metaKey) return;
  if (event.key === " " && keepsItsSpace(event.target)) return;
  event.preventDefault();  // no scrolling, no second click on a focused button
  if (event.key === " ") spaceTaken = true;
  if (!event.repeat || event.key !== " ") action();
});
// a focused button would take the space once more when it is released
document.addEventListener("keyup", (event) => {
  if (event.key === " " && spaceTaken) {
    event.preventDefault();
    spaceTaken = false;
  }
});

// -- reduced motion: the system's setting, followed as it changes --------------------------

const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
const PLAY_TITLE = byId("play").title;
const LOOP_TITLE = loopBox.parentElement.title;

function followMotion() {
  film.reduced = reducedMotion.matches;
  if (film.reduced) stop();
  byId("motion").hidden = !film.reduced;
  byId("play").title = film.reduced
    ? "show the next frame, the first at the end (space): your system asks for reduced motion"
    : PLAY_TITLE;
  loopBox.disabled = film.reduced;  // nothing starts over by itself
  loopBox.parentElement.title = film.reduced
    ? "off: your system asks for reduced motion" : LOOP_TITLE;
}

followMotion();
reducedMotion.addEventListener("change", () => {
  followMotion();
  refit();
});

// Speed and loop as the page has them. The echo of the player's own report changes nothing,
// nor does that of an earlier one: after a new speed the user may tick the loop before the
// page's rerun for the speed arrives, and that rerun still carries the loop unticked.
function takeSettings(next) {
  const settings = settingsOf(next);
  if (settings === settingsSeen) return;
  settingsSeen = settings;
  if (settingsReported.has(settings)) return;
  if (speedBox.options.length !== next.speeds.length) {
    speedBox.replaceChildren(...next.speeds.map((speed) => new Option(`${speed}×`, speed)));
  }
  film.speed = next.speed;
  film.loop = next.loop;
  speedBox.value = String(next.speed);
  loopBox.checked = next.loop;
}

// -- pictures of the film: what is on screen, drawn again at a size for slides --------------

// Pictures are drawn at this width in CSS pixels (the figure's type at its size on screen),
// PNGs at twice as many pixels; their height follows the data's aspect ratio within these
// shares of the width (a 16:9 slide is 0.5625).
const PICTURE_WIDTH = 960;
const PICTURE_HEIGHTS = [0.4, 0.62];
const PNG_SCALE = 2;
const TITLE_BAND = 48;    // px above the figure: the frame's title...
const CONTEXT_BAND = 26;  // ... and what the film is of: solver, paper, data
const NUMBERS_BAND = 34;  // px below it: the frame's numbers in one line

function pictureSize() {
  const [low, high] = PICTURE_HEIGHTS.map((share) => share * PICTURE_WIDTH);
  const figure = wantedHeight(PICTURE_WIDTH);
  const bands = TITLE_BAND + CONTEXT_BAND + NUMBERS_BAND;
  const height = Math.round(Math.min(Math.max(figure + bands, low), high));
  return { width: PICTURE_WIDTH, height, figure: height - bands };
}

// The figure drawn once more, out of sight, at the picture's size: its axes place the
// decision function and the markers as on screen. Removed by the caller.
async function pictureFigure() {
  const { width, figure: height } = pictureSize();
  const gd = document.createElement("div");
  gd.style.cssText = `position: fixed; left: ${-2 * width}px; top: 0; width: ${width}px;`;
  document.body.append(gd);
  const figure = themedFigure();
  await Plotly.newPlot(gd, figure.data, { ...figure.layout, width, height },
    { staticPlot: true });
  return gd;
}

// plotly's own drawing (its SVG, with the points' colours of the frame) as an image.
async function svgImage(gd, scale) {
  const layout = gd._fullLayout;
  const svg = layout._paper.node().cloneNode(true);
  for (const group of layout._toppaper.node().childNodes) {
    if (group.childNodes.length) svg.append(group.cloneNode(true));
  }
  svg.setAttribute("xmlns", "http://www.w3.org/2000/svg");
  svg.setAttribute("viewBox", `0 0 ${layout.width} ${layout.height}`);
  svg.setAttribute("width", layout.width * scale);
  svg.setAttribute("height", layout.height * scale);
  const url = URL.createObjectURL(new Blob([new XMLSerializer().serializeToString(svg)],
    { type: "image/svg+xml" }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    return image;
  } finally {
    URL.revokeObjectURL(url);
  }
}

function pictureFont(size) {
  return `${size}px ${getComputedStyle(document.body).fontFamily}`;
}

// Frame k as one picture: its title, the decision function beneath the figure, plotly's
// drawing, the progress markers above, and the frame's numbers in a line below.
async function drawPicture(canvas, gd, k, scale) {
  const { width, height, figure } = pictureSize();
  canvas.width = width * scale;
  canvas.height = height * scale;
  const ctx = canvas.getContext("2d");
  ctx.setTransform(scale, 0, 0, scale, 0, 0);
  ctx.fillStyle = theme.backgroundColor;
  ctx.fillRect(0, 0, width, height);
  ctx.fillStyle = theme.textColor;
  ctx.font = pictureFont(28);
  ctx.textBaseline = "middle";
  ctx.fillText(args.titles[k], 12, TITLE_BAND / 2, width - 24);
  ctx.font = pictureFont(16);
  ctx.fillStyle = getComputedStyle(document.body).getPropertyValue("--muted").trim()
    || theme.textColor;
  ctx.fillText(contextLine(), 12, TITLE_BAND + CONTEXT_BAND / 2 - 4, width - 24);
  ctx.translate(0, TITLE_BAND + CONTEXT_BAND);
  paintBeneath(ctx, gd, k);
  colorPoints(gd, k);
  ctx.drawImage(await svgImage(gd, scale), 0, 0, width, figure);
  paintAbove(ctx, gd, k);
  ctx.translate(0, figure);
  ctx.font = pictureFont(18);
  ctx.fillStyle = theme.textColor;
  // each number with its note (the error against the supervised SVM's): a slide says both
  const numbers = args.numbers.map((n) => `${n.label} ${n.values[k]}` +
    (n.notes && n.notes[k] ? ` (${n.notes[k]})` : "")).join("   ·   ");
  ctx.fillText(numbers, 12, NUMBERS_BAND / 2, width - 24);
}

// What the film is of, in one line: the solver, its paper and the data set.
function contextLine() {
  const c = args.context || {};
  return [c.solver, c.paper, c.data].filter(Boolean).join("  ·  ");
}

function fileName(extension) {
  const frame = extension === "png" ? `-frame-${film.frame + 1}` : "";
  return `${args.name || "s3vm-film"}${frame}.${extension}`;
}

function download(blob, name) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
}

function megabytes(bytes) {
  return `${(bytes / 1e6).toFixed(bytes < 1e6 ? 2 : 1)} MB`;
}

// The frame on screen as a PNG, with everything the player draws (plotly's camera would save
// its own drawing only: no decision function, no boundary).
async function savePNG() {
  const gd = await pictureFigure();
  try {
    const canvas = document.createElement("canvas");
    await drawPicture(canvas, gd, film.frame, PNG_SCALE);
    download(await new Promise((done) => canvas.toBlob(done, "image/png")), fileName("png"));
  } finally {
    Plotly.purge(gd);
    gd.remove();
  }
}

// The whole film as an animated GIF at PICTURE_WIDTH: each frame for its time at 1x
// (frame_ms, Play's pace), the last one for hold_ms, in a loop. `progress(done, total)`
// hears of each frame.
async function makeGIF(progress) {
  const gd = await pictureFigure();
  try {
    const canvas = document.createElement("canvas");
    const ctx = canvas.getContext("2d", { willReadFrequently: true });
    const pixels = async (k) => {
      await drawPicture(canvas, gd, k, 1);
      return ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    };
    const n = args.states.length;
    // one palette for the film, from its first, middle and last frames
    const samples = [];
    for (const k of new Set([0, Math.floor(n / 2), n - 1])) samples.push(await pixels(k));
    const gif = new GifWriter(canvas.width, canvas.height, samples);
    for (let k = 0; k < n; k++) {
      gif.frame(await pixels(k), k === n - 1 ? args.hold_ms : args.frame_ms[k]);
      progress(k + 1, n);
    }
    return gif.blob();
  } finally {
    Plotly.purge(gd);
    gd.remove();
  }
}

// This page as one file with its film: plotly.js, the GIF writer and the player inlined,
// the film's arguments (bytes in base64) and the theme in a script before the player's.
async function pageFile() {
  const files = ["index.html", "plotly.min.js", "gif.js", "player.js"];
  const [page, ...scripts] = await Promise.all(files.map(async (name) => {
    const response = await fetch(name);
    if (!response.ok) throw new Error(`${name}: ${response.status}`);
    return response.text();
  }));
  const base64 = (bytes) => {
    let text = "";
    for (let i = 0; i < bytes.length; i += 0x8000) {
      text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    }
    return { base64: btoa(text) };
  };
  const saved = { theme, frame: film.frame, args: Object.fromEntries(Object.entries(args)
    .map(([key, value]) => [key, value instanceof Uint8Array ? base64(value) : value])) };
  const script = (text) => `<script>${text.replaceAll("</script", "<\\/script")}</script>`;
  let html = page;
  files.slice(1).forEach((name, i) => {
    html = html.replace(`<script src="${name}"></script>`, () =>
      (name === "player.js" ? script(`window.standaloneFilm = ${JSON.stringify(saved)};`) : "") +
      script(scripts[i]));
  });
  return new Blob([html], { type: "text/html" });
}

// -- the Save row: a frame as PNG, the film as GIF, the film as a page -----------------------

const saving = { gif: null, page: null };  // what was made for this film, to save

function describeSaves() {
  const { width, height } = pictureSize();
  byId("png").textContent = `PNG of this frame · ${width * PNG_SCALE} × ${height * PNG_SCALE} px`;
  byId("png").title = "The frame on screen with everything the player draws, for a slide.";
  byId("gif").textContent = `Make a GIF of the film · ${width} × ${height} px, ` +
    `${args.states.length} frames`;
  byId("gif").title = "An animated GIF of the whole film (it loops), for a slide. It takes a " +
    "few seconds; its size shows before you save it.";
  byId("gif").disabled = false;
  byId("gif-save").hidden = true;
}

async function offerPage() {
  const link = byId("html");
  if (!link) return;  // this file is the page already
  if (!saving.page) saving.page = pageFile();
  const blob = await saving.page;
  link.href = URL.createObjectURL(blob);
  link.download = fileName("html");
  link.textContent = `Save the film as a page that plays offline · ${megabytes(blob.size)}`;
  link.title = "One HTML file with plotly.js inside: it plays this film with the same " +
    "controls in any browser, without the app or a network.";
  link.hidden = false;
  if (!byId("export").hidden) showSaveRow();  // (the row grew by this link)
}

function forgetSaves() {
  for (const id of ["gif-save", "html"]) {
    const link = byId(id);
    if (!link) continue;  // (a saved page has no link to save itself)
    if (link.href) URL.revokeObjectURL(link.href);
    link.removeAttribute("href");
    link.hidden = true;
  }
  saving.gif = null;
  saving.page = null;
  if (!byId("export").hidden) {
    describeSaves();
    offerPage().catch(console.error);
  }
}

byId("exports").addEventListener("click", () => {
  const panel = byId("export");
  panel.hidden = !panel.hidden;
  byId("exports").setAttribute("aria-expanded", String(!panel.hidden));
  if (!panel.hidden && args) {
    describeSaves();
    if (saving.gif) byId("gif-save").hidden = false;
    offerPage().catch(console.error);
    showSaveRow();
  }
});

// The Save row opens under the numbers, which stay where they are; the page scrolls to the
// row once the page has made the player's frame taller for it (sendHeight), or at once when
// it is tall enough already.
function showSaveRow() {
  const scroll = () => byId("export").scrollIntoView({ block: "nearest" });
  if (standalone || document.body.scrollHeight <= window.innerHeight) {
    scroll();
    return;
  }
  const grown = () => {
    clearTimeout(late);
    window.removeEventListener("resize", grown);
    scroll();
  };
  const late = setTimeout(grown, 500);
  window.addEventListener("resize", grown);
}
byId("png").addEventListener("click", () => savePNG().catch(console.error));
byId("gif").addEventListener("click", async () => {
  const button = byId("gif");
  button.disabled = true;
  try {
    const blob = await makeGIF((done, total) => {
      button.textContent = `Making the GIF… frame ${done} of ${total}`;
    });
    saving.gif = blob;
    const link = byId("gif-save");
    link.href = URL.createObjectURL(blob);
    link.download = fileName("gif");
    link.textContent = `Save the GIF · ${megabytes(blob.size)}`;
    link.hidden = false;
    describeSaves();
    link.hidden = false;
  } catch (error) {
    console.error(error);
    button.textContent = "The GIF could not be made";
  } finally {
    button.disabled = false;
  }
});

// -- the page's messages ----------------------------------------------------------------

// No toolbar: plotly's covered the charts' titles whenever the pointer was over the film, and
// the Save row saves the frame (savePNG) with everything the player draws.
const PLOT_CONFIG = { displaylogo: false, displayModeBar: false };

async function render(next) {
  takeSettings(next);
  const themeKey = JSON.stringify(next.theme || null);
  // a new film: another run (its id) or the same run drawn otherwise (the baseline toggled)
  const rebuilt = next.film !== film.id || next.figure !== figureJson;
  if (rebuilt) {
    stop();
    reportedAt.clear();  // another film's states
    const [fillBytes, colors] = await Promise.all(
      [next.grid ? inflate(next.fill) : null, inflate(next.points)]);
    args = next;
    figureJson = next.figure;
    film.id = next.film;
    fill = fillBytes && int8(fillBytes);
    pointColors = colors;
    scrub.max = String(lastFrame());
    film.frame = Math.min(next.frame, lastFrame());
    makeNumbers();
    reserveNumbers();
    holdFrames();
    byId("stage").setAttribute("aria-label", next.label || "the solver's film");
    const figure = JSON.parse(next.figure);
    // plotly narrows the boundary's domain to its equal scales, in the layout it is given too
    const domain = figure.layout.xaxis.domain;
    boundary = { share: domain[1] - domain[0], margin: { ...figure.layout.margin } };
  }
  args = next;
  if (rebuilt || themeKey !== themeSeen) {
    themeSeen = themeKey;
    applyTheme(next.theme);
    const figure = themedFigure();
    if (rebuilt) keepArrangement(figure.layout);
    figure.layout.width = stageWidth();
    figure.layout.height = fittedHeight(figure.layout.width);
    arrange(figure.layout, figure.layout.width, figure.layout.height);
    const fresh = !plot._fullLayout;
    await Plotly.react(plot, figure.data, figure.layout, PLOT_CONFIG);
    if (fresh) {
      // plotly's measuring SVG, off screen, would be an unnamed image to a screen reader
      const tester = document.getElementById("js-plotly-tester");
      if (tester) tester.setAttribute("aria-hidden", "true");
      // zoom, pan and resizing move the axes: paint the canvases for the new ones
      plot.on("plotly_afterplot", paint);
      plot.on("plotly_relayout", paint);
    }
    paint();
    sendHeight();
    forgetSaves();
  }
  // The page's frame changes when the player reports a state too; following those echoes
  // would pull the film back while the user steps on. Jump only when the page asks to, and
  // not to a state the player reported moments ago, nor while playing to the one it reported
  // last: after quick steps the page's details slider echoes them as moves of its own, which
  // pulled the film back a step or stopped a Play just started.
  const target = Math.min(next.frame, lastFrame());
  const reportedAgo = performance.now() - (reportedAt.get(args.states[target]) ?? -Infinity);
  const echo = reportedAgo < ECHO_MS || (film.playing && args.states[target] === reported);
  if (rebuilt || (next.jump !== jumpSeen && !echo)) {
    stop();
    show(target);
    announce(target);
  }
  jumpSeen = next.jump;
  if (rebuilt) film.films += 1;
}

let rendering = Promise.resolve();
function queue(next) {
  // one failed render must not stop the ones after it
  rendering = rendering.then(() => render(next)).catch(console.error);
}

if (standalone) {
  // the saved page: its film, its bytes back from base64, and no page around it to ask
  document.body.classList.add("standalone");
  byId("html").remove();
  const context = standalone.args.context || {};
  if (context.solver) {
    // the saved page says what it is of: in its title (the browser's tab) and above the film
    document.title = `${context.solver} on ${context.data}`;
    const line = document.createElement("div");
    line.id = "context";
    line.textContent = [context.solver, context.paper, context.data].join("  ·  ");
    byId("title").before(line);
  }
  const bytes = (value) => Uint8Array.from(atob(value.base64), (ch) => ch.charCodeAt(0));
  const saved = Object.fromEntries(Object.entries(standalone.args).map(([key, value]) =>
    [key, value && value.base64 !== undefined ? bytes(value) : value]));
  queue({ ...saved, theme: standalone.theme, frame: standalone.frame, jump: 0 });
  document.body.focus();
} else {
  // The page's frame is named by what it holds (Streamlit titles it by the component's code
  // name, which a screen reader would read out).
  try {
    window.frameElement.setAttribute("aria-label", "The solver's film and its controls");
  } catch (error) {
    // another origin: the frame keeps its title
  }
  window.addEventListener("message", (event) => {
    if (event.data && event.data.type === "streamlit:render") {
      queue({ ...event.data.args, theme: event.data.theme });
    }
  });
  send("streamlit:componentReady", { apiVersion: 1 });
}
