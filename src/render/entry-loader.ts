/**
 * Starts the app's code after the document's first paint (docs/rendering.md "Entry loader"). The document is
 * complete without script: its text, styles and font paint first, on their own, and the entry script and the page's
 * chunks are asked for once the browser reports that paint (the `first-contentful-paint` entry of the Paint Timing
 * API, delivered after the frame is on screen). On a slow link the 61 kB of the entry then never shares the wire with
 * the font or the hero image before the first paint; hydration follows it.
 *
 * The script starts the code at once where waiting would gain nothing or never end:
 * - the browser has no paint timing (Safari before 14.1);
 * - the document is not visible (a tab opened in the background, a prerender): it paints nothing until shown;
 * - the tab is hidden before its first paint.
 *
 * A timer bounds the wait in any other case.
 *
 * The code is fetched from then on (module preloads), but the entry runs only once the document is parsed, as the
 * deferred module script it replaces did: a streamed page's state and its late boundaries come after the head, and
 * hydration must see the whole document.
 *
 * It is a classic inline script: it carries the response's nonce, and hands it to the elements it inserts (the
 * policy's `strict-dynamic` would trust them anyway; the nonce keeps them allowed without it).
 */

export interface EntryLoaderOptions {
  /** The longest the loader waits for the first paint before it starts the code anyway. */
  fallbackMs: number
}

/**
 * The loader's text. Its tag (src/render/template.ts) names the URLs in data attributes: `data-entry`, the module
 * scripts to run, and `data-preload`, the page's own chunks, modulepreloaded with them so that they load in parallel
 * rather than after the entry asks for them. So the text is the same on every page and for every deployment (a kept
 * document's compressed parts share it). ES5 on purpose: it runs before anything else, in every browser the build
 * targets (config/browsers.ts).
 */
export function entryLoaderSource(fallbackMs: number): string {
  return (
    '(function(s){var d=document,started=false;' +
    'function add(tag,set){var e=d.createElement(tag);e.crossOrigin="";e.nonce=s.nonce;e.fetchPriority="low";' +
    'set(e);d.head.appendChild(e)}' +
    'function start(){if(started)return;started=true;var entries=s.dataset.entry.split(" ");' +
    '(s.dataset.entry+" "+(s.dataset.preload||"")).split(" ").forEach(function(href){' +
    'if(href)add("link",function(e){e.rel="modulepreload";e.href=href})});' +
    'function run(){entries.forEach(function(src){add("script",function(e){e.type="module";e.src=src})})}' +
    'if(d.readyState==="loading")d.addEventListener("DOMContentLoaded",run);else run()}' +
    'var types=window.PerformanceObserver&&PerformanceObserver.supportedEntryTypes;' +
    'if(d.visibilityState!=="visible"||!types||types.indexOf("paint")<0)return start();' +
    'try{new PerformanceObserver(function(list){if(list.getEntriesByName("first-contentful-paint").length)start()})' +
    '.observe({type:"paint",buffered:true})}catch(e){return start()}' +
    'd.addEventListener("visibilitychange",start);' +
    `setTimeout(start,${Math.max(0, Math.round(fallbackMs))})` +
    '})(document.currentScript)'
  )
}
