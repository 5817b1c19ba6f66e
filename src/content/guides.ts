import type { Guide } from '../../site/data-types.ts'

/**
 * The example site's guides: one per delivery mechanic. Server-only: pages receive them as data, so none of this
 * text is part of the client bundle (test/build/client-bundle.test.ts).
 */
export const guides: readonly Guide[] = [
  {
    slug: 'streaming-ssr',
    title: 'Streaming server rendering',
    summary: 'How a Courier page starts arriving before all of it is ready, and how a render ends when nobody is waiting.',
    sections: [
      {
        heading: 'Shell first, boundaries later',
        paragraphs: [
          'Every page Courier serves is rendered on the server with React’s renderToPipeableStream. React first produces the shell: the document head, the layout, the headings and every part of the page that does not wait for data. As soon as the shell is ready, Courier sends the status line and the headers and hands the stream to Fastify as the body of the reply. Parts of the page wrapped in a Suspense boundary follow later in the same response, each one as soon as its data has resolved, together with a small inline script that moves it into the place its fallback was holding.',
          'Handing a stream to Fastify, instead of writing to the raw Node response behind its back, keeps Fastify in charge of the reply: its hooks, its access log line and its error handler all see the response. Backpressure works as well. When a slow client cannot keep up, the stream stops accepting data and React pauses, instead of buffering the whole page in memory.',
        ],
      },
      {
        heading: 'Errors, disconnects and time-outs',
        paragraphs: [
          'An error thrown before the shell is ready can still change the status, so the visitor gets the 500 page with a digest. An error after the shell has been flushed cannot, because the status line is already on the wire: the status stays, and the error screen is streamed into the document instead.',
          'A render never outlives its audience. When the client closes the connection, Courier aborts the render, so no work is spent on a page nobody will read; a disconnect is not a server error and is not logged as one. A render that has not finished after the render time-out of 10 seconds is aborted as well: the browser keeps what was already flushed, pending boundaries are finished on the client, and the document is closed properly.',
        ],
      },
      {
        heading: 'Data that cannot break out',
        paragraphs: [
          'The data the server used for the page is embedded in the document as a JSON script element, so the browser can hydrate without asking for it again. Guide text is written by people, and such text can contain anything. A paragraph that quotes the string </script> must not end the script element early, and a line separator (\u2028) must not break a JavaScript string literal. Courier escapes <, >, & and the two separators U+2028 and U+2029 inside that element, so data always stays data, whatever it says.',
        ],
      },
    ],
  },
  {
    slug: 'request-filter',
    title: 'The request filter',
    summary: 'A site-wide policy that runs on every path except a short, exact list of exclusions, and cannot be talked out of it.',
    sections: [
      {
        heading: 'Every path but the exclusions',
        paragraphs: [
          'Courier runs one site-wide request filter as a Fastify onRequest hook, before any route handler sees the request. It applies the site policy: a fresh Content-Security-Policy nonce, the policy header that uses it, and the usual security headers, namely nosniff, a referrer policy, frame-ancestors, a permissions policy, and Strict-Transport-Security when HSTS is switched on. The policy is an ordered list of steps, so a site can add its own, such as redirects or an authentication gate. Each step can continue, redirect or answer the request itself.',
          'The filter applies to every path except a short list taken from the product specification: paths starting with api, paths starting with _next, images, favicon.ico, sitemap.xml and the numbered sitemap files such as /sitemap-0.xml, robots.txt, and the faq path with or without a trailing slash. These are API endpoints, built assets, plain files and one page that must stay reachable whatever the policy does. Excluded requests get no nonce and run no site steps, and the access log records the decision as applied or excluded.',
        ],
      },
      {
        heading: 'Matched by whole segments',
        paragraphs: [
          'The exclusions are compiled once at start-up and matched on the decoded, normalised path, the same path the router matches, by whole path segments. /api and /api/health are excluded, but /apix is not. /faq and /faq/ are excluded, but /faq-admin is filtered. /images/dunes.jpg is excluded, /images-private is not. An encoded variant such as /%61pi gets the same decision as the path it stands for. Spellings that a router, a proxy or a wildcard could read in two ways (a doubled slash, a dot segment, an encoded slash or backslash, a malformed escape) are refused with 400 Bad Request, so no spelling reaches a page around the filter.',
          'A page-data request is judged as the page it serves: /_next/data/<id>/guides/images.json gets the decision of /guides/images, so a gate that guards a page guards its data too, and /_next/data/<id>/faq.json is excluded just like /faq.',
        ],
      },
      {
        heading: 'No header can skip it',
        paragraphs: [
          'The decision depends on the path alone. Headers such as x-middleware-subrequest, x-matched-path and x-invoke-path have been used to bypass middleware in other frameworks. To Courier they are ordinary headers with no meaning, and sending them changes nothing.',
        ],
      },
    ],
  },
  {
    slug: 'content-security-policy',
    title: 'Content Security Policy with nonces',
    summary: 'Why every inline script on a Courier page carries a fresh random value, and what strict-dynamic adds.',
    sections: [
      {
        heading: 'A fresh nonce for every request',
        paragraphs: [
          'For every request that passes through the request filter, Courier draws 128 bits from the cryptographic random source of the operating system and encodes them as the nonce of that response. The nonce is used once and then forgotten: it is not stored, not derived from the URL and never shared between two responses, so a value seen in one page is worthless in the next.',
          'The Content-Security-Policy header names the nonce in script-src together with strict-dynamic. A script runs only if it carries the nonce, or if a script that carries it loaded it. That second rule lets the client entry script import the code-split chunks of the router without the policy listing each one: trust flows from the nonce to whatever the trusted script loads. Browsers that understand strict-dynamic ignore host allow-lists and unsafe-inline, so an attacker cannot lean on a broad allow-list either. The remaining doors are closed by the other directives: object-src none stops plug-ins, base-uri self stops a forged base element from redirecting relative script URLs, and frame-ancestors keeps other origins from framing the site.',
        ],
      },
      {
        heading: 'On every inline script',
        paragraphs: [
          'The nonce is written on every script element the page contains: the module script that starts the client, the script that carries the hydration data, and the small inline scripts React emits while it streams Suspense boundaries. Courier passes the nonce to renderToPipeableStream, so React stamps its own scripts, and the document template stamps the rest. An injected script tag without the nonce does not run, which turns most cross-site scripting mistakes into harmless text.',
          'Paths the filter excludes, such as /api, everything under /_next and the /faq page, receive no nonce and no policy from the filter, because the filter does not run for them.',
        ],
      },
      {
        heading: 'Why a nonce and not hashes',
        paragraphs: [
          'React’s streaming scripts differ from page to page and from one render to the next, so listing their hashes in the policy is impractical, and a policy that allows unsafe-inline protects nothing. A nonce costs one random value per response, and it works for every script the page will ever contain.',
        ],
      },
    ],
  },
  {
    slug: 'deployment-id',
    title: 'Deployment ids',
    summary: 'One id per build, stamped on every asset URL, so a browser never mixes two deployments.',
    sections: [
      {
        heading: 'Where the id comes from',
        paragraphs: [
          'Each build of Courier has exactly one deployment id. Set DEPLOYMENT_ID when you build to choose it, for example a release tag or a commit hash of up to 64 letters, digits, dots, underscores or hyphens. Without it, the build takes the first 16 hex digits of a SHA-256 hash over every file the client build emits, so the same sources always give the same id and any change gives a new one.',
          'The build records the id next to its output, and the server reads it once at start-up. If DEPLOYMENT_ID is also set when the server starts and does not match the build, start-up stops with an error instead of serving a mismatched pair. The id stands on the html element as data-dpl-id, so the client, and anyone reading the page source, can see which deployment they have.',
        ],
      },
      {
        heading: 'On every asset URL',
        paragraphs: [
          'Every URL the page or the client loads carries the id as a query string, ?dpl=<id>: scripts, stylesheets, the Inter font files, the preload links and the code-split chunks, including the chunk imports the bundler writes into other chunks. One build step rewrites every reference to an emitted file in the same way, wherever it appears. That matters more than it seems. If a chunk could be fetched under two URLs, the browser would evaluate it twice and the page would end up with two copies of React. With one stamp everywhere, each file has exactly one URL per deployment, and a browser cannot assemble a page from the cached files of two deployments.',
        ],
      },
      {
        heading: 'Skew between browser and server',
        paragraphs: [
          'A visitor who opened the site before a deployment keeps running the old client. The next time it navigates, it asks for page data under /_next/data/<old id>/ and sends the old id in the x-deployment-id header. The server compares both with its own id. If either differs, it answers 409 Conflict with no-store. The client treats that answer as skew and does the safe thing: a full page navigation to the target URL, which loads the new deployment from scratch. The visitor sees an ordinary page load, never old code rendering new data.',
        ],
      },
    ],
  },
  {
    slug: 'page-data',
    title: 'Page data',
    summary: 'The JSON a client-side navigation fetches instead of a whole new document.',
    sections: [
      {
        heading: 'The data URL',
        paragraphs: [
          'A client-side navigation does not download a new document. It fetches the data of the target page as JSON and renders the new view with code it already has or loads on the way. Every page has a data URL under /_next/data/<deployment id>/: the page path followed by .json, so /guides/images becomes /_next/data/<id>/guides/images.json, and the home page uses /index.json. The answer is exactly what the page’s server-only loader gives the server renderer, so a page looks the same whether it was rendered on the server or in the browser.',
          'The route answers GET and HEAD only; any other method gets 405 Method Not Allowed. Responses are application/json with nosniff, and carry the server’s deployment id in the x-deployment-id header. The client always asks from the same origin and always sends its own id in that header.',
        ],
      },
      {
        heading: 'Static and dynamic pages',
        paragraphs: [
          'Each page is declared static or dynamic in the route table. The data of a static page, such as a guide, is computed once per deployment and kept. Its response carries an ETag, and a request whose If-None-Match matches gets 304 Not Modified with no body, so checking a page again costs a few bytes.',
          'The data of a dynamic page, such as the status page with its server time and memory figures, is computed for every request and sent with Cache-Control private, no-store, so neither a proxy nor the browser cache ever reuses it.',
        ],
      },
      {
        heading: 'Not found, redirects and failures',
        paragraphs: [
          'A loader can also say that a page does not exist, which becomes a 404 JSON answer with notFound set to true, or that the visitor belongs elsewhere, which becomes a redirect the client follows. A loader that throws goes through the error handler like any other failure: a 500 JSON answer with a digest, never the message or the stack. And because the request filter judges a data URL as the page it serves, a policy step that guards a page guards its data too.',
        ],
      },
    ],
  },
  {
    slug: 'client-router',
    title: 'The client router',
    summary: 'How a click on a link becomes a new view without a new document, and stays accessible on the way.',
    sections: [
      {
        heading: 'Links that work without JavaScript',
        paragraphs: [
          'Courier’s Link component renders a real anchor with a real href, so it works before the client has loaded, for crawlers, and for visitors who never run JavaScript. Once the client is running, a plain left click is intercepted and handled in the page. Everything else is left to the browser: a click with Ctrl, Meta, Shift or Alt held, a middle click, a link with a target or a download attribute, a link to another origin, and a link to a fragment of the page already shown.',
        ],
      },
      {
        heading: 'What a navigation does',
        paragraphs: [
          'A navigation loads the code chunk of the target page and its page data at the same time. When both are in, the router renders the new view, pushes the URL onto the session history and sets the document title from the page. The route table that drives the server routes also drives the client router, so server and browser always agree on what a path means and which parameters it carries.',
          'A new view should be noticed by everyone, not only by people who see the screen change. After a navigation, focus moves to the main content, and a visually hidden live region, the route announcer, reads out the title of the new page, so a screen reader user learns that the view changed. A new navigation starts at the top of the page. Back and forward restore the scroll position the visitor left, because the router remembers it for every history entry.',
        ],
      },
      {
        heading: 'When navigations overlap',
        paragraphs: [
          'If a second navigation starts while the first is still loading, the first is cancelled with the internal error Route Cancelled. It is never shown and never reported as a failure: the visitor simply changed their mind, and only the latest navigation may render. A route whose code and data have not both arrived within 3800 ms is handed to the browser as a full page navigation, as the guide on retries and fallbacks explains.',
        ],
      },
    ],
  },
  {
    slug: 'prefetching',
    title: 'Prefetching',
    summary: 'Loading the next page before the visitor asks for it, without flooding the server or the connection.',
    sections: [
      {
        heading: 'When a link is prefetched',
        paragraphs: [
          'Most navigations can feel instant if the next page is fetched before the visitor asks for it. A Link starts a prefetch when it comes within 200 pixels of the viewport, watched by an IntersectionObserver with a rootMargin of 200px, and when the pointer hovers over it, which on a desktop usually gives a few hundred milliseconds of head start before the click. A prefetch loads the code chunk of the page and, for static pages, its page data.',
        ],
      },
      {
        heading: 'One queue, five at a time',
        paragraphs: [
          'All prefetches go through one queue that runs at most five at a time. A page with a hundred links in view therefore sends five requests, then the next five, and never floods the server or the visitor’s connection. A prefetch that is already in flight is shared: a hover over a link whose prefetch has started waits for the same request, and so does a click. A prefetch that fails is not cached, so the next attempt, or the navigation itself, tries again instead of remembering the failure.',
        ],
      },
      {
        heading: 'How long prefetched data stays fresh',
        paragraphs: [
          'Prefetched data of a static page stays fresh for 300 seconds: a navigation within that time renders straight from memory without asking the server. After that the data is fetched again, which for a static page is usually a cheap 304. Data of a dynamic page has a stale time of zero. Only its code is prefetched, and its data is always fetched at the moment of navigation, so the status page never shows figures from the moment its link scrolled into view.',
        ],
      },
      {
        heading: 'Respecting Save-Data',
        paragraphs: [
          'Visitors who have turned on their browser’s data saver, which the browser announces as Save-Data, get no prefetching at all. Links still work and navigations still happen inside the page; the code and data of the target are simply loaded when the visitor clicks rather than in advance.',
        ],
      },
    ],
  },
  {
    slug: 'retries-and-fallbacks',
    title: 'Retries and fallbacks',
    summary: 'What the client does when the network or the server lets it down, and why it never reloads in a loop.',
    sections: [
      {
        heading: 'Retrying what can succeed',
        paragraphs: [
          'A page-data fetch can fail for reasons that pass: a server restarting during a deployment, a proxy briefly out of connections, a mobile network that drops for a moment. So a fetch that ends with a 5xx status or a network error is retried, three attempts in all, with a short backoff before each retry, 100 ms and then 300 ms, so the navigation still feels immediate. A 4xx answer is not retried, because asking again would give the same answer, and a 409 for deployment skew goes straight to a full page navigation.',
        ],
      },
      {
        heading: 'Falling back to the browser',
        paragraphs: [
          'When the data still cannot be loaded after the last attempt, the client writes the error to the browser console with console.error, as the internal error Failed to load page data, and falls back to a full page navigation to the target URL. The server then renders the page as it would for a first visit, with its own error page if the server really is in trouble, so the visitor ends up either where they meant to go or in front of an honest error page.',
          'The fallback never goes to the URL already shown. Reloading the page the visitor is looking at would bring back the same failing state, and a client that recovers by reloading itself can loop forever. In that case the client stays on the current view and leaves the error in the console.',
        ],
      },
      {
        heading: 'Time-outs and cancellations',
        paragraphs: [
          'Slow is treated like failed once it is slow enough. A route whose code and data have not both arrived within 3800 ms is abandoned in the page, and the browser loads the target with a full page navigation instead, which at least shows the streamed shell as it arrives. A navigation that starts while another is still loading cancels the older one with the internal error Route Cancelled. That error exists so that late answers for an abandoned route are dropped; it is never shown to the visitor and never counted as a failure.',
        ],
      },
    ],
  },
  {
    slug: 'error-pages',
    title: 'Error pages',
    summary: 'One status-title table for every failure, digests for server-side exceptions, and JSON for machines.',
    sections: [
      {
        heading: 'The status-title table',
        paragraphs: [
          'Courier answers every failure with one generic error page that shows the status code and a title, on screen and in the document title as <status>: <title>. The titles come from a single table: 400 Bad Request, 404 This page could not be found, 405 Method Not Allowed and 500 Internal Server Error. Any other status, such as 403, 413 or 503, gets An unexpected error has occurred. Error responses carry Cache-Control no-store, so no cache keeps a failure after it has been fixed.',
        ],
      },
      {
        heading: 'Digests for server-side exceptions',
        paragraphs: [
          'When the server itself fails, the visitor should learn that something went wrong, but not what: a message or a stack trace can leak file paths, queries or secrets. So a server-side exception gets a digest, a short hash of ten hex digits unique to that occurrence. The error screen shows it, and the same digest stands in the error line of the log, next to the request id, the full message and the stack. A visitor who reports the digest gives an operator everything needed to find the one line that matters. Each error is logged once, however many layers see it pass.',
          'In the browser, the application error screen says that a client-side exception occurred while loading the site, or a server-side exception followed by its digest, and points to the browser console for more information.',
        ],
      },
      {
        heading: 'JSON for machines',
        paragraphs: [
          'Requests under /api and everything under /_next, including page data, optimised images and static assets, get JSON instead of HTML: an object with statusCode, code, error and message. A script or a data fetch that receives an HTML page instead of what it asked for fails in confusing ways; a JSON error fails clearly. For 5xx answers the message is just the title and the digest is added, so no detail of the exception leaves the server.',
        ],
      },
      {
        heading: 'After the shell',
        paragraphs: [
          'An error that happens after the HTML shell has been flushed cannot change the status, which is already on the wire. Courier keeps the status it sent and streams the error screen into the document instead.',
        ],
      },
    ],
  },
  {
    slug: 'images',
    title: 'The image optimizer',
    summary: 'Resized, re-encoded images on demand, from a fixed list of widths, cached on disk.',
    sections: [
      {
        heading: 'Asking for an image',
        paragraphs: [
          'The optimizer lives at /_next/image?url=&w=&q=. url is a local path such as /images/dunes.jpg; remote addresses are accepted only from an allow-list, so the optimizer can never be used as an open proxy. w is the width in pixels and q the quality from 1 to 100. The Image component writes these URLs for you, with a srcset that lets the browser pick the smallest width that still looks sharp on the visitor’s screen.',
        ],
      },
      {
        heading: 'Only known widths',
        paragraphs: [
          'w must come from one of two lists: the device sizes 640, 750, 828, 1080, 1200, 1920, 2048 and 3840 for images that fill the width of a screen, and the image sizes 16, 32, 48, 64, 96, 128, 256 and 384 for icons, avatars and thumbnails. Any other width is a 400 Bad Request. A fixed list keeps the cache bounded: without it, one script asking for every width from 1 to 4000 could fill the disk with near-identical files. The Image component builds its srcset from the same configuration, and GET /api/image-widths returns both lists for anyone else who needs them.',
        ],
      },
      {
        heading: 'Formats by Accept',
        paragraphs: [
          'The output format follows the Accept header of the browser: AVIF when it is accepted, WebP when that is, and the source format for everyone else. Responses say Vary: Accept, so a shared cache keeps one copy per format. SVG sources and anything that is not a raster image are refused, and the number of decoded pixels is bounded, so a small file that claims enormous dimensions cannot exhaust the server’s memory.',
        ],
      },
      {
        heading: 'Cached on disk',
        paragraphs: [
          'Each result is written to a cache on disk. The response carries Cache-Control public, max-age=N, must-revalidate, where N is the source’s own max-age or 60 seconds, whichever is longer, and an ETag, so a revalidation costs a 304. A response header reports the cache state: MISS when the image was just made, HIT when it came from the disk cache, and STALE when an expired entry was served while a fresh one is made in the background.',
        ],
      },
    ],
  },
  {
    slug: 'static-assets',
    title: 'Static assets',
    summary: 'Hashed file names, a year of immutable caching, and a clean 404 for anything else.',
    sections: [
      {
        heading: 'Hashed names, cached for a year',
        paragraphs: [
          'The client build lives under /_next/static/: the entry script, the code-split chunk of every page, the stylesheet and the Inter font files. Every file name contains a hash of the file’s content, so a name never changes meaning: different content always gets a different name.',
          'That is what makes aggressive caching safe. Courier serves these files with Cache-Control public, max-age=31536000, immutable. The max-age of 31536000 seconds is one year, and immutable tells the browser not to revalidate even when the visitor reloads the page, so a returning visitor’s browser takes the site’s code straight from its cache without a single request. A new build produces new names, and the ?dpl= query with the deployment id makes sure no URL of an old deployment ever stands for a file of a new one.',
        ],
      },
      {
        heading: 'Unknown assets',
        paragraphs: [
          'A request for a file under /_next/static that does not exist gets a 404 with Cache-Control no-store and a JSON body, never the HTML error page. There are two reasons. A browser that asked for a script must not receive a document it would try to run or report as a syntax error. And no cache may keep the miss, because the file may well exist a minute later, once a deployment has finished rolling out. Folders, dotfiles and paths that try to climb out of the build folder are not served either.',
        ],
      },
      {
        heading: 'Public files',
        paragraphs: [
          'Files that keep their names across deployments, such as /favicon.ico and the photographs under /images/, cannot be immutable. They are cached for an hour with must-revalidate and then checked again with their ETag, which usually costs a 304.',
        ],
      },
    ],
  },
  {
    slug: 'fonts-and-browsers',
    title: 'Fonts and browsers',
    summary: 'Inter served from the same origin and preloaded, and a build that runs in the browsers people still use.',
    sections: [
      {
        heading: 'Inter, self-hosted',
        paragraphs: [
          'Body text on a Courier site is set in Inter, a sans-serif family designed for screens. The font files come from an npm package and go through the same build as the rest of the client: they get hashed names under /_next/static, the deployment id on their URL and a year of immutable caching. No request leaves the origin, so no third-party font service learns who reads the site, and the Content Security Policy needs no exception for another host.',
        ],
      },
      {
        heading: 'Preloaded with the stylesheet',
        paragraphs: [
          'A font referenced only from a stylesheet is discovered late: the browser must download and parse the CSS before it knows it needs the font, and text waits or flashes in a fallback face in the meantime. Courier writes a preload link for the Inter file, with as="font" and crossorigin, into the head of the document, so the browser fetches the font together with the stylesheet instead of after it. Inter is a variable font, so one file covers every weight the site uses.',
        ],
      },
      {
        heading: 'Targeted browsers',
        paragraphs: [
          'Vite builds the client for Chrome 64, Edge 79, Firefox 67, Opera 51 and Safari 12, and everything newer. These are the first versions that load native JavaScript modules with dynamic import() and import.meta, which the code-split client relies on; Edge 79 is the first Edge built on Chromium. Newer syntax those browsers cannot parse, such as optional chaining, nullish coalescing and class fields, is rewritten into older equivalents at build time.',
          'Older browsers still get something useful: the server-rendered HTML is complete and readable without JavaScript, and every Link is an ordinary anchor that works as one.',
        ],
      },
    ],
  },
  {
    slug: 'logging-and-operations',
    title: 'Logging and operations',
    summary: 'Structured logs with request ids, secrets kept out, a health check and a graceful shutdown.',
    sections: [
      {
        heading: 'One line per request',
        paragraphs: [
          'Courier logs with pino, one JSON object per line, ready for any log shipper; when the output is a terminal it prints a readable form instead. LOG_LEVEL chooses the level, info by default. Every request produces exactly one access line with the method, the URL, the matched route, the status, the duration in milliseconds and the filter decision, applied or excluded. The line of a 5xx answer carries the digest the visitor was shown.',
          'Every line written while handling a request carries its reqId. A well-formed incoming x-request-id header, 1 to 64 letters, digits, dots, underscores or hyphens, becomes the reqId, so one id follows a request from a proxy or load balancer into Courier; anything else is ignored and Courier generates a fresh id. The response carries the id back in x-request-id, so a client can quote it in a report.',
        ],
      },
      {
        heading: 'Secrets stay out of the log',
        paragraphs: [
          'Cookie and authorization headers are redacted before a line is written, as are proxy-authorization, x-api-key and set-cookie. The values of query parameters that usually hold secrets, such as token or password, are replaced with [Redacted] while their names are kept, so the log still shows the shape of the request.',
        ],
      },
      {
        heading: 'Health and shutdown',
        paragraphs: [
          'GET /api/health answers {"status":"ok"} with no-store, for load balancers and orchestrators. It sits under /api, so the request filter never touches it.',
          'On SIGTERM, the signal an orchestrator sends before it stops a container, Courier stops accepting new connections, lets the requests in flight finish, and exits. If that takes longer than 10 seconds it exits anyway, and a second signal exits at once. An invalid environment variable stops the process at start-up with a message that names the variable.',
        ],
      },
    ],
  },
]
