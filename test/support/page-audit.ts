/**
 * What a person sees on a page, measured in the page itself (Chromium through playwright-core): the contrast
 * of every visible text against the background it is drawn on (WCAG 2.2 relative luminance, AA asks 4.5:1),
 * and the controls and texts that are cut off (outside the viewport, or outside a box of theirs that clips or
 * scrolls sideways). The probes are plain JavaScript strings, so that nothing the test runner's compiler adds
 * reaches the page.
 */
import type { Page } from 'playwright-core';

/** One text whose contrast is below the bar: the text, its colours and the ratio. */
export interface LowContrast {
  text: string;
  fg: string;
  bg: string;
  ratio: number;
}

/** One control or text cut off: what it is, and why. */
export interface Clipped {
  what: string;
  why: string;
}

/**
 * The in-page probe of contrast: for each text node with visible characters inside a rendered element, the
 * element's text colour (its alpha times every ancestor's opacity) over the first opaque background among it
 * and its ancestors (semi-transparent backgrounds composited on the way up; a background image counts as
 * unknown and the text is reported with `bg` "image"). Returns the texts whose ratio is below `min`.
 */
const CONTRAST_PROBE = `(min) => {
  const parse = (c) => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return null; const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 }; };
  const over = (top, under) => ({ r: top.r * top.a + under.r * (1 - top.a), g: top.g * top.a + under.g * (1 - top.a), b: top.b * top.a + under.b * (1 - top.a), a: 1 });
  const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); };
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.backgroundImage && s.backgroundImage !== 'none' && !s.backgroundImage.startsWith('url(')) return 'image';
      const c = parse(s.backgroundColor);
      if (c && c.a > 0) { layers.push(c); if (c.a >= 1) break; }
    }
    let bg = { r: 255, g: 255, b: 255, a: 1 };
    for (const layer of layers.reverse()) bg = over(layer, bg);
    return bg;
  };
  const out = [];
  const seen = new Set();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim();
    const el = node.parentElement;
    if (!text || !el || el.closest('script,style,noscript,title')) continue;
    const range = document.createRange(); range.selectNodeContents(node);
    const rect = range.getBoundingClientRect();
    if (rect.width < 1 || rect.height < 1) continue;
    const s = getComputedStyle(el);
    if (s.visibility !== 'visible') continue;
    let opacity = 1; for (let e = el; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
    if (opacity === 0) continue;
    const fg0 = parse(s.color); const bg = background(el);
    if (bg === 'image') { out.push({ text: text.slice(0, 60), fg: s.color, bg: 'image', ratio: 0 }); continue; }
    const fg = over({ ...fg0, a: fg0.a * opacity }, bg);
    const [l1, l2] = [lum(fg), lum(bg)].sort((a, b) => b - a);
    const ratio = (l1 + 0.05) / (l2 + 0.05);
    const id = text.slice(0, 60) + s.color + JSON.stringify(bg);
    if (ratio < min && !seen.has(id) && seen.add(id)) out.push({ text: text.slice(0, 60), fg: s.color, bg: 'rgb(' + [bg.r, bg.g, bg.b].map(Math.round).join(',') + ')', ratio: Math.round(ratio * 100) / 100 });
  }
  return out;
}`;

/**
 * The in-page probe of clipping: every visible control (link, button, input, select, textarea, summary,
 * anything focusable) must lie inside the viewport's width and inside every ancestor that clips or scrolls
 * sideways; every element that clips or scrolls sideways must not hold content wider than itself (a
 * scrolled-away closing quote is as lost as a scrolled-away button); the page itself must not scroll sideways.
 */
const CLIP_PROBE = `() => {
  const out = [];
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + ' "' + (el.textContent || el.getAttribute('aria-label') || '').trim().slice(0, 40) + '"';
  const shown = (el) => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el); return r.width > 0 && r.height > 0 && s.visibility === 'visible'; };
  const vw = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > vw) out.push({ what: 'the page', why: 'scrolls sideways: ' + document.documentElement.scrollWidth + ' px in ' + vw });
  for (const el of document.querySelectorAll('a[href],button,input,select,textarea,summary,[tabindex]')) {
    if (!shown(el) || el.getAttribute('tabindex') === '-1') continue;
    const r = el.getBoundingClientRect();
    // A skip link waits off-screen to the left until it has focus: that is where it belongs.
    if (r.right <= 0 && getComputedStyle(el).position === 'absolute') continue;
    if (r.left < -0.5 || r.right > vw + 0.5) { out.push({ what: name(el), why: 'outside the viewport: ' + Math.round(r.left) + '..' + Math.round(r.right) + ' of ' + vw }); continue; }
    for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      const ox = getComputedStyle(a).overflowX;
      if (ox === 'visible') continue;
      const b = a.getBoundingClientRect();
      if (r.left < b.left - 0.5 || r.right > b.right + 0.5) { out.push({ what: name(el), why: 'cut off by ' + name(a).slice(0, 30) + ' (' + ox + ')' }); break; }
    }
  }
  for (const el of document.querySelectorAll('body *')) {
    if (!shown(el)) continue;
    const ox = getComputedStyle(el).overflowX;
    if (ox === 'visible' || el.tagName === 'svg') continue;
    if (el.scrollWidth > el.clientWidth + 1) out.push({ what: name(el), why: 'holds ' + el.scrollWidth + ' px in ' + el.clientWidth + ' (' + ox + ')' });
  }
  return out;
}`;

/** The texts of `page` whose contrast is below `min` (4.5, WCAG 2.2 AA for body text). */
export function lowContrast(page: Page, min = 4.5): Promise<LowContrast[]> {
  return page.evaluate<LowContrast[]>(`(${CONTRAST_PROBE})(${min})`);
}

/** The controls and texts of `page` that are cut off, and whether the page scrolls sideways. */
export function clipped(page: Page): Promise<Clipped[]> {
  return page.evaluate<Clipped[]>(`(${CLIP_PROBE})()`);
}
