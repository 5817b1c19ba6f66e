/**
 * The example site's guides: one per delivery mechanic. Server-only: pages receive them as data, so none of this
 * text is part of the client bundle (test/build/client-bundle.test.ts).
 */
export interface Guide {
  slug: string
  title: string
  summary: string
  sections: Array<{ heading: string; paragraphs: string[] }>
}

export const guides: readonly Guide[] = [
  {
    slug: 'streaming-ssr',
    title: 'Streaming server rendering',
    summary: 'How the first view of a page leaves the server before all of it is ready.',
    sections: [
      {
        heading: 'Shell first, the rest as it resolves',
        paragraphs: [
          'Every page Courier serves is rendered on the server with React’s renderToPipeableStream. React first produces the shell: the layout, the headings and every part of the page that does not wait for anything. As soon as the shell is ready, Courier sends the status line and the headers and hands the stream to Fastify with reply.send. Parts of the page wrapped in a Suspense boundary follow later in the same response, each one as soon as its data has arrived, with a small inline script that moves it into place.',
          'Handing the stream to Fastify, rather than piping into the raw Node response, matters: Fastify keeps control of the reply, so its hooks, its access log and its error handling still see the response, and backpressure from a slow client reaches React, which then pauses instead of buffering the whole page in memory.',
        ],
      },
      {
        heading: 'When something goes wrong',
        paragraphs: [
          'An error before the shell is ready can still change the status: the visitor gets the 500 page. An error after the shell has been flushed cannot, because the status line is already on the wire, so the status stays and the failed boundary is rendered again in the browser. Either way the error is logged once, with a digest that the visitor can quote.',
          'A render never outlives its usefulness. When the client closes the connection, Courier aborts the render so no work is spent on a page nobody will read, and nothing is logged as a server error. A render that has not finished after the render time-out (10 seconds) is aborted too: the client keeps what was flushed and the document is closed properly.',
        ],
      },
      {
        heading: 'The data travels with the page',
        paragraphs: [
          'The page’s data is embedded in the document as a JSON script element, so the browser can hydrate without asking again. Data is text written by people, and text can contain anything: a guide that quotes the string </script> must not end the script element early, and a line separator (\u2028) must not break a JavaScript literal. Courier escapes <, >, & and the two separators U+2028 and U+2029 inside that element, so data is always data.',
        ],
      },
    ],
  },
  {
    slug: 'request-filter',
    title: 'The request filter',
    summary: 'A site-wide policy that runs on every path except a short, exact list of exclusions.',
    sections: [
      {
        heading: 'Every path but the exclusions',
        paragraphs: [
          'Courier runs one request filter, an onRequest hook, in front of every route. It applies the site policy: a fresh Content-Security-Policy nonce, the security headers, configured redirects, and whatever steps a site adds of its own, such as an authentication gate. Steps run in order and each can continue, redirect or answer.',
          'A short list of paths is excluded, exactly as the product specification gives it: paths starting with api, paths starting with _next, images, favicon.ico, sitemap.xml and the numbered sitemap files, robots.txt, and the faq path with or without a trailing slash. These are files, machine endpoints and one page that must stay reachable whatever the policy does.',
        ],
      },
      {
        heading: 'Matched the way the router matches',
        paragraphs: [
          'The exclusions are compiled once, when the server starts, and matched by whole path segments on the same decoded, normalised path the router uses. So /apix, /faq-admin and /images-private stay filtered, and an encoded, doubled-slash or dot-segment variant of a path gets the same decision as the path itself, or a 400 when it cannot be decoded.',
          'No request header changes the decision. Headers such as x-middleware-subrequest, x-matched-path or x-invoke-path have been used to skip middleware in other frameworks; in Courier they are ordinary headers and mean nothing. A page-data request gets the decision of the page it serves, so a gate that guards a page guards its data too.',
        ],
      },
    ],
  },
  {
    slug: 'content-security-policy',
    title: 'Content Security Policy with nonces',
    summary: 'Why every inline script on a Courier page carries a fresh random value.',
    sections: [
      {
        heading: 'One nonce per response',
        paragraphs: [
          'On every filtered page, Courier generates a nonce of 128 random bits and sends a Content-Security-Policy whose script-src allows only scripts carrying that nonce, with strict-dynamic so those scripts may load the code-split chunks they need. object-src is none, base-uri is self and frame-ancestors is none.',
          'The nonce is written on every script the page contains: the module script that boots the client, the hydration data, and the small inline scripts React emits while streaming Suspense boundaries. An injected script without the nonce does not run, which turns most cross-site scripting bugs into harmless text.',
        ],
      },
      {
        heading: 'Why not a hash or a fixed list',
        paragraphs: [
          'React’s streaming scripts differ from page to page, so listing their hashes is impractical, and a policy that allows unsafe-inline protects nothing. A per-response nonce is cheap: it is one random value and one string substitution per response, which Courier keeps to a minimum so even pages rendered once per deployment can carry a fresh nonce.',
        ],
      },
    ],
  },
  {
    slug: 'deployment-id',
    title: 'Deployment ids',
    summary: 'One id per build, stamped on every asset URL so browsers never mix two deployments.',
    sections: [
      {
        heading: 'Where the id comes from',
        paragraphs: [
          'Each build has one deployment id. Set DEPLOYMENT_ID when you build to choose it, for example a release tag; otherwise Courier takes the first sixteen hex digits of a SHA-256 hash over the client build, so the same sources always give the same id. The id stands on the html element as data-dpl-id.',
        ],
      },
      {
        heading: 'On every asset URL',
        paragraphs: [
          'Every URL the page or the client loads carries the id as a query string: ?dpl=<id> on scripts, stylesheets, fonts and code-split chunks, including the chunk imports the bundler writes itself. A build plugin stamps every reference to an emitted file in the same way, so a chunk is never fetched under two URLs, which would load two copies of React.',
        ],
      },
      {
        heading: 'Skew between browser and server',
        paragraphs: [
          'A browser that loaded the site before a deployment keeps running the old client. When it asks for page data, it sends its id in the x-deployment-id header. If the id is not the server’s, the server answers 409 and the client does the safest thing it can: a full page navigation, which loads the new deployment from scratch.',
        ],
      },
    ],
  },
  {
    slug: 'page-data',
    title: 'Page data',
    summary: 'The JSON that client navigation fetches instead of a whole new document.',
    sections: [
      {
        heading: 'The data URL',
        paragraphs: [
          'Every page has a data URL under /_next/data/<deployment id>/: the page path followed by .json, and /index.json for the home page. It answers the same data the page’s loader gives the server renderer, as application/json, with the deployment id in a response header. Only GET and HEAD are allowed; anything else is a 405.',
        ],
      },
      {
        heading: 'Static and dynamic pages',
        paragraphs: [
          'A static page’s data is computed once per deployment and kept. Its response carries a strong ETag, and a request that already has the data gets 304 Not Modified with no body. A dynamic page’s data is computed for every request and sent with private, no-store caching, so no proxy and no browser cache ever reuses it.',
          'A loader can also say that the page does not exist, which becomes a 404 with notFound set to true, or that the visitor belongs elsewhere, which becomes a redirect the client follows. A loader that throws goes through the error handler like any other failure: a 500 with a digest, never the message.',
        ],
      },
    ],
  },
  {
    slug: 'client-router',
    title: 'The client router',
    summary: 'How a click on a link becomes a new view without a new document.',
    sections: [
      {
        heading: 'Links that still work without JavaScript',
        paragraphs: [
          'Courier’s Link renders a real anchor with an href, so it works before the client has loaded and for visitors who never run it. Once the client is running, a plain left click is intercepted. A click with a modifier key, a link with a target or a download attribute, a link to another origin or a link to a hash on the same page is left to the browser.',
        ],
      },
      {
        heading: 'What a navigation does',
        paragraphs: [
          'A navigation loads the code chunk of the target page and its data at the same time, then renders the new view, pushes the URL to the history and updates the document title. Focus moves to the main content and a live region announces the new title, so a screen reader user learns that the view changed. Going back or forward restores the scroll position the visitor left.',
          'If a second navigation starts while the first is still loading, the first is cancelled with the internal error Route Cancelled. It is never shown and never logged as an error: the visitor simply changed their mind.',
        ],
      },
    ],
  },
  {
    slug: 'prefetching',
    title: 'Prefetching',
    summary: 'Loading the next page before the visitor asks for it, without flooding the server.',
    sections: [
      {
        heading: 'When a link is prefetched',
        paragraphs: [
          'A Link starts a prefetch when it comes within 200 pixels of the viewport, watched by an IntersectionObserver with that root margin, and when the pointer hovers it. The prefetch loads the page’s code chunk and, for static pages, its data. Visitors who ask for reduced data use, through the Save-Data header, get no prefetching at all.',
        ],
      },
      {
        heading: 'One queue, five at a time',
        paragraphs: [
          'All prefetches go through one queue that runs at most five at a time, so a page with a hundred links does not send a hundred requests at once. A prefetch already in flight is shared by everyone who asks for the same page, and a failed prefetch is not cached, so the next attempt tries again.',
          'Prefetched data of a static page stays fresh for 300 seconds; a navigation within that time uses it without asking the server again. Data of a dynamic page has a stale time of zero: only its code is prefetched, and its data is always fetched at navigation.',
        ],
      },
    ],
  },
  {
    slug: 'retries-and-fallbacks',
    title: 'Retries and fallbacks',
    summary: 'What the client does when the network or the server lets it down.',
    sections: [
      {
        heading: 'Retrying what can succeed',
        paragraphs: [
          'A page-data fetch that fails with a server error or a network error is retried, three attempts in all with a short backoff between them. A 4xx answer is not retried: asking again would give the same answer.',
        ],
      },
      {
        heading: 'Falling back to the browser',
        paragraphs: [
          'When the data still cannot be loaded, the client logs Failed to load page data to the browser console and falls back to a full page navigation to the target URL. The server then renders the page as it would for a first visit, so the visitor ends up where they wanted to go. The fallback never goes to the URL already shown, which would reload the same page in a loop.',
          'A route whose code and data have not both arrived within 3800 milliseconds falls back in the same way. A slow network should cost the visitor a full page load, not an indefinite wait on a page that looks frozen.',
        ],
      },
    ],
  },
  {
    slug: 'error-pages',
    title: 'Error pages and digests',
    summary: 'The status-title table, and how a visitor’s error screen leads to one log line.',
    sections: [
      {
        heading: 'The status-title table',
        paragraphs: [
          'Every error response uses one table: 400 Bad Request, 404 This page could not be found, 405 Method Not Allowed, 500 Internal Server Error, and for any other status, An unexpected error has occurred. A page request gets the error page, rendered in the site’s layout with the status and the title; a request under /api or /_next gets JSON with statusCode, code, error and message. Error responses are never cached.',
        ],
      },
      {
        heading: 'Digests instead of stack traces',
        paragraphs: [
          'A server-side exception never shows its message or stack to the visitor. Instead it gets a digest, a short hash unique to that occurrence. The digest is shown on the error screen and in JSON error bodies, and the same digest stands in the error’s log line next to the request id, with the full message and stack. An operator who receives a screenshot can find the exact line with one search.',
        ],
      },
    ],
  },
  {
    slug: 'images',
    title: 'Images',
    summary: 'Resizing, format negotiation and caching behind one URL.',
    sections: [
      {
        heading: 'The optimizer URL',
        paragraphs: [
          'Images are served through /_next/image with three query parameters: url, the local path of the source image; w, the width wanted; and q, the quality from 1 to 100. The width must be one of the configured sizes: 640, 750, 828, 1080, 1200, 1920, 2048 and 3840 pixels for full-width images on common devices, and 16, 32, 48, 64, 96, 128, 256 and 384 for small ones. Any other width is a 400, so nobody can make the server render a thousand sizes of one image.',
          'The output format follows the Accept header: AVIF or WebP when the browser takes them, else the source format, and the response says Vary: Accept so caches keep the variants apart.',
        ],
      },
      {
        heading: 'Cached on disk',
        paragraphs: [
          'Each result is cached on disk and served with public caching for at least 60 seconds, or longer when the source says so. A response header tells whether it was a MISS, a HIT or a STALE entry served while a fresh one is made in the background. The Image component builds its srcset from the same width lists, which GET /api/image-widths also returns.',
        ],
      },
    ],
  },
  {
    slug: 'static-assets',
    title: 'Static assets',
    summary: 'Hashed file names, a year of caching, and a clean 404 for anything else.',
    sections: [
      {
        heading: 'Immutable files',
        paragraphs: [
          'The client build lives under /_next/static/. Every file name contains a hash of its content, so a file never changes under its name: Courier serves them with Cache-Control public, max-age=31536000, immutable, and browsers keep them for a year without asking again. A new build produces new names, and the new deployment id on every URL makes sure no old copy is mixed in.',
        ],
      },
      {
        heading: 'Misses stay misses',
        paragraphs: [
          'A request for an asset that does not exist gets a 404 with no-store, as JSON. It is never the HTML error page: a browser that asked for a script must not receive a document, and a cache must not keep the miss, because the file may be deployed a minute later.',
        ],
      },
    ],
  },
  {
    slug: 'fonts-and-browsers',
    title: 'Fonts and browsers',
    summary: 'Inter served from the same origin, and a build that runs in the browsers people still use.',
    sections: [
      {
        heading: 'Inter, self-hosted',
        paragraphs: [
          'Body text is set in Inter. The font files come from an npm package and are built with the rest of the client, so they carry hashed names and the deployment id like every other asset, and no request leaves the origin: no font service learns who reads the site. The Latin subset is preloaded from the head of the document, so the browser fetches it together with the stylesheet instead of after it.',
        ],
      },
      {
        heading: 'Targeted browsers',
        paragraphs: [
          'Vite builds the client for Chrome 64, Edge 79, Firefox 67, Opera 51 and Safari 12. Newer syntax such as optional chaining, nullish coalescing and class fields is rewritten for them, and a test parses every emitted chunk to make sure nothing newer slipped through.',
        ],
      },
    ],
  },
  {
    slug: 'logging-and-operations',
    title: 'Logging and operations',
    summary: 'Structured logs, request ids, health checks and a graceful shutdown.',
    sections: [
      {
        heading: 'One line per request',
        paragraphs: [
          'Courier logs through pino as JSON, or in a readable form when the output is a terminal. Each request produces one access line with the method, URL, matched route, status, duration in milliseconds and the filter decision, and every line written for a request carries its request id.',
          'A well-formed x-request-id header, one to sixty-four letters, digits, dots, underscores or hyphens, becomes the request id, so one id follows a request through a proxy and into Courier; otherwise Courier makes one. The response carries it back in x-request-id. Cookies, authorization headers and secret query values such as token are never written to the log.',
        ],
      },
      {
        heading: 'Health and shutdown',
        paragraphs: [
          'GET /api/health answers {"status":"ok"} for load balancers and orchestrators. On SIGTERM or SIGINT, Courier stops accepting connections, lets requests in flight finish and exits; if that takes longer than ten seconds it exits anyway, and a second signal exits at once.',
        ],
      },
    ],
  },
]
