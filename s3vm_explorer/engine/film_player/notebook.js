"use strict";
// A film in a notebook's output (engine.notebook): the player's page in a frame of its own,
// without the player's scripts. plotly.js, the GIF writer and the player (about 2 MB
// compressed) travel once in a notebook, in a script element of type text/plain in one
// output (the first film's, or player_scripts()'s) that no page runs; the film's own
// arguments travel beside this frame, in its output. Both are read here from the notebook's
// page (a srcdoc frame is of its page's origin), and the scripts run in this frame.
//
// The scripts found are kept on the notebook's page too (as text), for the page's life: a film
// drawn again after the output that carried them is gone (cleared, or its cell re-run) still
// plays, and says that a copy of the notebook saved now would not.

(() => {
  const loader = document.currentScript;
  const { player, missing, memory, unreadable } = loader.dataset;
  const KEPT = "s3vmFilmPlayer";  // where the notebook's page keeps the scripts, by digest
  const WAIT_MS = 3000;           // the output carrying them may be drawn after this one
  const LOOK_MS = 1000;           // then, while it says they are missing, it looks again

  const notice = document.createElement("div");
  notice.id = "notice";
  notice.setAttribute("role", "status");
  notice.style.cssText = "padding: 10px; font-size: 15px; color: var(--text);";
  notice.textContent = "Loading the film's player…";
  document.body.prepend(notice);

  // The player's parts, hidden while the notice stands alone: its frame shrinks to the notice.
  const PARTS = ["title", "stage", "controls", "export", "motion", "numbers"];
  const host = window.frameElement;  // (null in a frame of another origin)
  const height = host && host.style.height;

  function say(text) {
    for (const id of PARTS) document.getElementById(id).style.display = "none";
    notice.style.border = "1px solid var(--worse)";
    notice.style.borderRadius = "6px";
    notice.style.margin = "8px";
    notice.textContent = text;
    if (host) host.style.height = `${Math.ceil(notice.getBoundingClientRect().bottom) + 12}px`;
  }

  function unsay() {
    for (const id of PARTS) document.getElementById(id).style.display = "";
    notice.style.border = notice.style.margin = "";
    if (host) host.style.height = height;
  }

  // The windows above this frame that it may read (of the page's origin), nearest first.
  function pages() {
    const found = [];
    for (let at = window.parent; ; at = at.parent) {
      try {
        if (!at.document) break;
      } catch (error) {
        break;  // another origin
      }
      found.push(at);
      if (at === at.parent) break;
    }
    return found;
  }

  function carrier() {
    for (const page of pages()) {
      const element = page.document.querySelector(`script[data-s3vm-player="${player}"]`);
      if (element) return element;
    }
    return null;
  }

  // The scripts a page already keeps (as strings: objects of this frame would die with it).
  function kept() {
    for (const page of pages()) {
      const scripts = page[KEPT] && page[KEPT][player];
      if (scripts) return JSON.parse(scripts);
    }
    return null;
  }

  function keep(scripts) {
    const page = pages().at(-1);
    if (!page) return;
    if (!page[KEPT]) page[KEPT] = new page.Object();
    page[KEPT][player] = JSON.stringify(scripts);
  }

  // base64 of the zlib-compressed JSON [[file name, text], …]
  async function unpack(element) {
    const bytes = Uint8Array.from(atob(element.textContent.trim()), (ch) => ch.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return JSON.parse(await new Response(stream).text());
  }

  // The scripts, from the page's output that carries them or else from its memory; until
  // either has them, it says they are missing and looks again (player_scripts() run in a
  // cell, or a film that carries them, starts this one).
  async function scripts() {
    const started = performance.now();
    for (;;) {
      const element = carrier();
      if (element) {
        const unpacked = await unpack(element);
        keep(unpacked);
        return { scripts: unpacked, fromMemory: false };
      }
      const remembered = kept();
      if (remembered) return { scripts: remembered, fromMemory: true };
      const waited = performance.now() - started;
      if (waited > WAIT_MS) say(missing);
      await new Promise((done) => setTimeout(done, waited > WAIT_MS ? LOOK_MS : 100));
    }
  }

  async function start() {
    const data = host && host.parentElement.querySelector("script[data-s3vm-film]");
    if (!data) {
      say(unreadable);
      return;
    }
    const found = await scripts();
    unsay();
    if (found.fromMemory) {
      notice.textContent = memory;
      if (host) host.style.height = `${host.offsetHeight + notice.offsetHeight}px`;
    } else {
      notice.remove();
    }
    window.standaloneFilm = JSON.parse(data.textContent);
    for (const [, text] of found.scripts) {  // plotly.js, the GIF writer, the player
      const element = document.createElement("script");
      element.textContent = text;
      document.body.append(element);
    }
  }

  start().catch((error) => {
    console.error(error);
    say(`The film's player could not start: ${error}`);
  });
})();
