"use strict";
// The Watch page's film player (ui/player.py builds its arguments).
//
// plotly draws the figure once: points, axes, the objective and stage-value charts. Each frame
// then costs a few milliseconds instead of a full plotly redraw: the decision function and its
// level lines are painted on the canvas beneath the plot, the points' colours are set on
// plotly's markers, the progress markers are painted on the canvas above it, and the numbers
// under the film are those of the frame on screen.

const byId = (id) => document.getElementById(id);
const plot = byId("plot");
const under = byId("under");
const over = byId("over");
const scrub = byId("scrub");
const speedBox = byId("speed");
const loopBox = byId("loop");

// What the page shows, read by the browser tests and benchmarks/app_speed.py: the film's id,
// the frame on screen, whether Play runs, when each frame of the last pass of Play was drawn,
// how many films this player has drawn, and Play's speed and loop.
const film = (window.film = { id: null, frame: 0, playing: false, drawn: [], films: 0,
  speed: 1, loop: false });

let args = null;           // the latest arguments from the page
let figureJson = null;     // the figure drawn now (a new one means a new film)
let jumpSeen = null;       // the page's last request to jump (its details slider moved)
let settingsSeen = null;   // the page's last speed and loop (from the session or a link)
let fill = null;           // int8 (frames, ny, nx): f * fill_steps on the display grid
let pointColors = null;    // uint8 (frames, n): each point's colour, an index into point_colors
const tile = document.createElement("canvas");  // the grid, one pixel per grid point

function send(type, data) {
  window.parent.postMessage({ isStreamlitMessage: true, type, ...data }, "*");
}

function int8(bytes) {
  return new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

// The frames' bytes come zlib-compressed (ui/player.py): about a ninth of their size.
async function inflate(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function lastFrame() {
  return args.states.length - 1;
}

// -- drawing one frame ------------------------------------------------------------------

function show(k) {
  film.frame = k;
  byId("title").textContent = args.titles[k];
  scrub.value = String(k);
  byId("where").textContent = `state ${args.states[k]} · frame ${k + 1} of ${args.states.length}`;
  showNumbers(k);
  paint();
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
  const layout = plot._fullLayout;
  if (!layout || !layout.xaxis || !args || film.frame > lastFrame()) return;
  const beneath = canvasFor(under);
  if (fill) paintDecision(beneath, layout.xaxis, layout.yaxis, film.frame);
  colorPoints(film.frame);
  const above = canvasFor(over);
  for (const chart of args.progress) paintMarker(above, layout[chart.x], layout[chart.y],
    args.steps[film.frame], chart.values[film.frame]);
}

// The points' colours are set on plotly's own markers: a restyle of marker.color recomputes
// the whole figure (about 40 ms), a style per marker costs well under one. plotly draws the
// markers anew after a zoom or a resize, and paint() then colours them again.
function colorPoints(k) {
  const trace = plot.calcdata && plot.calcdata[args.points_trace];
  if (!trace || !trace[0].node3) return;
  const markers = trace[0].node3.node().querySelectorAll("path.point");
  const n = args.n_points;
  for (let i = 0; i < markers.length && i < n; i++) {
    markers[i].style.fill = args.point_colors[pointColors[k * n + i]];
  }
}

function paintDecision(ctx, xaxis, yaxis, k) {
  const { nx, ny, x, y } = args.grid;
  const values = fill.subarray(k * nx * ny, (k + 1) * nx * ny);
  const limit = (args.fill_colors.length / 3 - 1) / 2;
  tile.width = nx;
  tile.height = ny;
  const tileCtx = tile.getContext("2d");
  const image = tileCtx.createImageData(nx, ny);
  for (let row = 0; row < ny; row++) {
    const source = (ny - 1 - row) * nx;  // y grows upwards, image rows downwards
    for (let i = 0; i < nx; i++) {
      const level = 3 * (values[source + i] + limit);
      const at = 4 * (row * nx + i);
      image.data[at] = args.fill_colors[level];
      image.data[at + 1] = args.fill_colors[level + 1];
      image.data[at + 2] = args.fill_colors[level + 2];
      image.data[at + 3] = 255;
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
  ctx.beginPath();
  for (const level of args.lines) {
    levelLine(ctx, values, nx, ny, level * args.fill_steps,
      (i) => px(x[0] + i * dx), (j) => py(y[0] + j * dy));
  }
  ctx.lineWidth = 2;
  ctx.lineJoin = "round";
  ctx.strokeStyle = args.line_color;
  ctx.stroke();
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
  ctx.fillStyle = "black";
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

function fittedHeight() {
  const { share, margin } = boundary;
  const width = (plot.clientWidth - margin.l - margin.r) * share;
  let screenHeight = window.screen.availHeight;
  let above = ABOVE_MOST;
  try {  // the page's window and this frame's place in it (served from the same origin)
    screenHeight = window.top.innerHeight;
    above = window.frameElement.getBoundingClientRect().top + window.top.scrollY;
  } catch (error) {
    // another origin: the screen's height and a header of the usual size
  }
  const chrome = byId("title").offsetHeight + byId("controls").offsetHeight +
    byId("numbers").offsetHeight + 8;
  const highest = Math.max(SMALLEST, screenHeight - Math.min(above, ABOVE_MOST) - chrome);
  const wanted = width / args.aspect + margin.t + margin.b;
  return Math.round(Math.min(Math.max(wanted, SMALLEST), highest));
}

function sendHeight() {
  send("streamlit:setFrameHeight", { height: document.body.scrollHeight });
}

window.addEventListener("resize", () => {
  if (!plot._fullLayout || !args) return;
  const height = fittedHeight();
  if (Math.abs(height - plot._fullLayout.height) > 2) {
    Plotly.relayout(plot, { height }).then(sendHeight);
  }
});

// -- playing ----------------------------------------------------------------------------

let animation = null;

function play() {
  if (film.playing) return;
  if (film.frame >= lastFrame()) show(0);
  film.playing = true;
  film.drawn = [performance.now()];
  let shownAt = performance.now();
  const tick = (now) => {
    if (!film.playing) return;
    const frameMs = args.frame_ms / film.speed;
    if (film.frame >= lastFrame()) {
      // looping: the result stays on screen for hold_ms, then the film starts over
      if (!film.loop) {  // the loop was switched off meanwhile
        stop();
        report(true);
        return;
      }
      if (now - shownAt >= args.hold_ms) {
        show(0);
        shownAt = now;
        film.drawn = [performance.now()];
      }
    } else if (now - shownAt >= frameMs) {
      // Frames are due every frameMs on the clock, not frameMs after the last one was drawn:
      // the screen refreshes every ~16.7 ms, and waiting for a full frameMs would often wait
      // for one more refresh. Faster than the screen, Play skips to the frame due.
      const by = film.speed > 1 ? Math.max(1, Math.floor((now - shownAt) / frameMs)) : 1;
      shownAt = Math.max(shownAt + by * frameMs, now - frameMs);
      show(Math.min(film.frame + by, lastFrame()));
      film.drawn.push(performance.now());
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
function report(withState) {
  reports += 1;
  send("streamlit:setComponentValue", {
    value: { film: args.film, state: withState ? args.states[film.frame] : null,
      speed: film.speed, loop: film.loop, report: reports },
    dataType: "json",
  });
}

function step(by) {
  stop();
  show(Math.min(Math.max(film.frame + by, 0), lastFrame()));
  report(true);
}

byId("play").addEventListener("click", play);
byId("pause").addEventListener("click", () => {
  stop();
  report(true);
});
byId("back").addEventListener("click", () => step(-1));
byId("forward").addEventListener("click", () => step(1));
scrub.addEventListener("input", () => {
  stop();
  show(Number(scrub.value));
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

// Speed and loop as the page has them; the echo of the player's own report changes nothing.
function takeSettings(next) {
  const settings = `${next.speed} ${next.loop}`;
  if (settings === settingsSeen) return;
  settingsSeen = settings;
  if (speedBox.options.length !== next.speeds.length) {
    speedBox.replaceChildren(...next.speeds.map((speed) => new Option(`${speed}×`, speed)));
  }
  film.speed = next.speed;
  film.loop = next.loop;
  speedBox.value = String(next.speed);
  loopBox.checked = next.loop;
}

// -- the page's messages ----------------------------------------------------------------

async function render(next) {
  takeSettings(next);
  // a new film: another run (its id) or the same run drawn otherwise (the baseline toggled)
  const rebuilt = next.film !== film.id || next.figure !== figureJson;
  if (rebuilt) {
    stop();
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
    showNumbers(film.frame);
    const figure = JSON.parse(next.figure);
    // plotly narrows the boundary's domain to its equal scales, in the layout it is given too
    const domain = figure.layout.xaxis.domain;
    boundary = { share: domain[1] - domain[0], margin: { ...figure.layout.margin } };
    figure.layout.height = fittedHeight();
    const fresh = !plot._fullLayout;
    await Plotly.react(plot, figure.data, figure.layout,
      { displaylogo: false, responsive: true });
    if (fresh) {
      // zoom, pan and resizing move the axes: paint the canvases for the new ones
      plot.on("plotly_afterplot", paint);
      plot.on("plotly_relayout", paint);
    }
    sendHeight();
  }
  args = next;
  // The page's frame changes when the player reports a state too; following those echoes
  // would pull the film back while the user steps on. Jump only when the page asks to.
  if (rebuilt || next.jump !== jumpSeen) {
    jumpSeen = next.jump;
    stop();
    show(Math.min(next.frame, lastFrame()));
  }
  if (rebuilt) film.films += 1;
}

let rendering = Promise.resolve();
window.addEventListener("message", (event) => {
  if (event.data && event.data.type === "streamlit:render") {
    // one failed render must not stop the ones after it
    rendering = rendering.then(() => render(event.data.args)).catch(console.error);
  }
});
send("streamlit:componentReady", { apiVersion: 1 });
