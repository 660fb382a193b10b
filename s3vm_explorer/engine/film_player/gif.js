"use strict";
// An animated GIF (GIF89a) of a film's frames, made in the browser from the pictures the
// player draws: one palette of 255 colours for the whole film (median cut over sample frames),
// each frame LZW-compressed, played in a loop. A pixel whose colour has not changed since the
// previous frame is left transparent: long runs of one index compress well, and most of a
// frame is the previous one (the charts, the points, the fill far from the boundary): the
// GIF is about half as large.

// 6 bits a channel: the film's fills are smooth gradients, and 5 bits would band them.
const BITS = 6;
const SHIFT = 8 - BITS;
const LEVELS = 1 << BITS;
const TRANSPARENT = 255;  // the palette's last index: "as in the previous frame"

function colorKey(data, at) {
  return ((data[at] >> SHIFT) << (2 * BITS)) | ((data[at + 1] >> SHIFT) << BITS) |
    (data[at + 2] >> SHIFT);
}

// Median cut (Heckbert 1982): the colour boxes holding the most pixels over the widest range
// are split at their median until there are `size`; each colour is its box's mean.
function medianCutPalette(samples, size = 256) {
  const counts = new Uint32Array(LEVELS ** 3);
  for (const data of samples) {
    for (let at = 0; at < data.length; at += 4) counts[colorKey(data, at)] += 1;
  }
  const channel = (key, c) => (key >> ((2 - c) * BITS)) & (LEVELS - 1);
  const describe = (keys) => {
    let pixels = 0;
    let widest = 0;
    let along = 0;
    for (let c = 0; c < 3; c++) {
      let low = LEVELS;
      let high = -1;
      for (const key of keys) {
        low = Math.min(low, channel(key, c));
        high = Math.max(high, channel(key, c));
      }
      if (high - low > widest) [widest, along] = [high - low, c];
    }
    for (const key of keys) pixels += counts[key];
    return { keys, pixels, widest, along };
  };
  const used = [];
  counts.forEach((count, key) => { if (count) used.push(key); });
  const boxes = [describe(used)];
  while (boxes.length < size) {
    let pick = -1;
    for (let i = 0; i < boxes.length; i++) {
      const box = boxes[i];
      if (box.keys.length > 1 && (pick < 0 || box.pixels * box.widest >
          boxes[pick].pixels * boxes[pick].widest)) pick = i;
    }
    if (pick < 0) break;  // every colour has a box of its own
    const { keys, pixels, along } = boxes[pick];
    keys.sort((a, b) => channel(a, along) - channel(b, along));
    let seen = 0;
    let cut = 1;
    while (cut < keys.length - 1 && seen + counts[keys[cut - 1]] < pixels / 2) {
      seen += counts[keys[cut - 1]];
      cut += 1;
    }
    boxes.splice(pick, 1, describe(keys.slice(0, cut)), describe(keys.slice(cut)));
  }
  const palette = new Uint8Array(3 * boxes.length);
  boxes.forEach((box, i) => {
    for (let c = 0; c < 3; c++) {
      let sum = 0;
      for (const key of box.keys) sum += counts[key] * ((channel(key, c) << SHIFT) + (1 << SHIFT) / 2);
      palette[3 * i + c] = Math.round(sum / Math.max(box.pixels, 1));
    }
  });
  return palette;
}

// Each pixel's nearest palette colour, remembered per 6-bit colour.
function indexPixels(data, palette, nearest, size = TRANSPARENT) {
  const indices = new Uint8Array(data.length / 4);
  for (let at = 0, i = 0; at < data.length; at += 4, i++) {
    const key = colorKey(data, at);
    let index = nearest[key];
    if (index < 0) {
      let best = Infinity;
      for (let p = 0; p < size; p++) {
        const dr = palette[3 * p] - data[at];
        const dg = palette[3 * p + 1] - data[at + 1];
        const db = palette[3 * p + 2] - data[at + 2];
        const distance = 2 * dr * dr + 4 * dg * dg + 3 * db * db;  // green weighs most
        if (distance < best) [best, index] = [distance, p];
      }
      nearest[key] = index;
    }
    indices[i] = index;
  }
  return indices;
}

class Bytes {
  constructor() { this.chunks = []; this.size = 0; this.part = []; }
  byte(b) { this.part.push(b & 0xff); if (this.part.length >= 65536) this.flush(); }
  word(w) { this.byte(w); this.byte(w >> 8); }
  text(s) { for (const ch of s) this.byte(ch.charCodeAt(0)); }
  array(a) { this.flush(); this.chunks.push(a); this.size += a.length; }
  flush() {
    if (this.part.length) {
      this.chunks.push(Uint8Array.from(this.part));
      this.size += this.part.length;
      this.part = [];
    }
  }
  blob(type) { this.flush(); return new Blob(this.chunks, { type }); }
}

// GIF's LZW (variable code width from 9 to 12 bits, least significant bit first) over
// 8-bit indices, in sub-blocks of at most 255 bytes.
function lzw(indices) {
  const clear = 256;
  const end = 257;
  const table = new Int16Array(4096 * 256);  // (prefix code, index) -> code; 0 = none
  const out = [];
  let block = [];
  let buffer = 0;
  let bits = 0;
  let width = 9;
  let next = 258;
  const emit = (code) => {
    buffer |= code << bits;
    bits += width;
    while (bits >= 8) {
      block.push(buffer & 0xff);
      buffer >>>= 8;
      bits -= 8;
      if (block.length === 255) { out.push(255, ...block); block = []; }
    }
  };
  emit(clear);
  let prefix = indices[0];
  for (let i = 1; i < indices.length; i++) {
    const index = indices[i];
    const code = table[prefix * 256 + index];
    if (code) {
      prefix = code;
      continue;
    }
    emit(prefix);
    if (next === 4096) {  // the table is full: start a new one
      emit(clear);
      table.fill(0);
      next = 258;
      width = 9;
    } else {
      table[prefix * 256 + index] = next;
      // the decoder widens its codes one code later than the encoder adds it
      if (next === 1 << width && width < 12) width += 1;
      next += 1;
    }
    prefix = index;
  }
  emit(prefix);
  emit(end);
  if (bits > 0) block.push(buffer & 0xff);
  if (block.length) out.push(block.length, ...block);
  out.push(0);
  return Uint8Array.from(out);
}

// A GIF writer: `frame(rgba, delayMs)` for each frame, then `blob()`.
class GifWriter {
  constructor(width, height, samples) {
    this.width = width;
    this.height = height;
    this.palette = new Uint8Array(3 * 256);
    this.palette.set(medianCutPalette(samples, TRANSPARENT));
    this.previous = null;
    this.nearest = new Int16Array(LEVELS ** 3).fill(-1);
    this.bytes = new Bytes();
    const b = this.bytes;
    b.text("GIF89a");
    b.word(width);
    b.word(height);
    b.byte(0xf7);  // a global colour table of 2^(7 + 1) colours
    b.byte(0);
    b.byte(0);
    b.array(this.palette);
    b.byte(0x21); b.byte(0xff); b.byte(11); b.text("NETSCAPE2.0");  // loop for ever
    b.byte(3); b.byte(1); b.word(0); b.byte(0);
  }

  frame(rgba, delayMs) {
    const indices = indexPixels(rgba, this.palette, this.nearest);
    const written = indices.slice();
    if (this.previous) {
      for (let i = 0; i < indices.length; i++) {
        if (indices[i] === this.previous[i]) written[i] = TRANSPARENT;
      }
    }
    this.previous = indices;
    const b = this.bytes;
    b.byte(0x21); b.byte(0xf9); b.byte(4);  // graphic control: the frame's delay
    b.byte(0x05);  // kept under the next frame (disposal 1), with a transparent index
    b.word(Math.max(2, Math.round(delayMs / 10)));
    b.byte(TRANSPARENT); b.byte(0);
    b.byte(0x2c); b.word(0); b.word(0); b.word(this.width); b.word(this.height); b.byte(0);
    b.byte(8);  // LZW minimum code size
    b.array(lzw(written));
  }

  blob() {
    this.bytes.byte(0x3b);
    return this.bytes.blob("image/gif");
  }
}

window.GifWriter = GifWriter;
