import type { FaqEntry } from '../../site/data-types.ts'

/** The example site's FAQ. Server-only: the page receives it as data. */
export const faq: readonly FaqEntry[] = [
  {
    question: 'How do I start Courier?',
    answer:
      'Run npm install && npm start. The start script builds the client first when there is no build yet or a source is newer than the build, then serves the site on port 3000. Open http://localhost:3000 in a browser.',
  },
  {
    question: 'How do I run the tests?',
    answer:
      'Run npm test. It type-checks the project, builds it, runs the server tests, and then the browser tests in Chromium when /usr/bin/chromium is installed; without it the browser suite is skipped with a line saying so. npm run test:unit runs the server tests alone.',
  },
  {
    question: 'Which environment variables does Courier read?',
    answer:
      'PORT (default 3000), HOST (default 0.0.0.0), LOG_LEVEL (default info), DEPLOYMENT_ID and TRUST_PROXY (default false), plus HSTS, SITE_URL and DIST_DIR. They are validated once at start-up, and a bad value stops the server with a message naming the variable.',
  },
  {
    question: 'When should I set TRUST_PROXY?',
    answer:
      'Only when Courier runs behind a reverse proxy or load balancer that sets the X-Forwarded headers. It is off by default, so a client talking to Courier directly cannot pretend to come from another address or over another protocol.',
  },
  {
    question: 'Why is /faq excluded from the request filter?',
    answer:
      'Because the product specification lists the faq path among the exclusions, with or without a trailing slash. This page is therefore served without the site policy: no nonce and no site steps. Paths that merely start with the same letters, such as /faq-admin, are still filtered, because exclusions match whole path segments.',
  },
  {
    question: 'A visitor sent me a digest. How do I find the error?',
    answer:
      'Search the logs for it. The digest shown on the error screen stands in the error line of that request, next to the request id, the full message and the stack. The visitor only ever sees the digest, never the message.',
  },
  {
    question: 'What happens when a browser still runs an old deployment?',
    answer:
      'Its page-data requests carry the old deployment id in the URL and in the x-deployment-id header. The server answers 409, and the client falls back to a full page navigation, which loads the current deployment. The visitor sees an ordinary page load.',
  },
  {
    question: 'Why do asset URLs end in ?dpl=…?',
    answer:
      'The query is the deployment id. It keeps a browser from mixing the files of two deployments and makes every chunk load under exactly one URL, so no module is ever evaluated twice. To choose the id yourself, set DEPLOYMENT_ID when you build.',
  },
  {
    question: 'Which browsers are supported?',
    answer:
      'Chrome 64, Edge 79, Firefox 67, Opera 51 and Safari 12, and everything newer. Older browsers still get the server-rendered HTML, which is readable without JavaScript, with links that work as ordinary links.',
  },
  {
    question: 'Is anything loaded from another origin?',
    answer:
      'No. Scripts, styles, images and the Inter font are all served by Courier itself. No font service or content network learns who reads the site.',
  },
  {
    question: 'Why does a link sometimes load a whole new page?',
    answer:
      'That is a fallback, not a fault. The client does a full page navigation when the page data still fails after three attempts, when the route has not loaded within 3800 ms, or when the server runs a newer deployment than the browser. The browser console says why when it was a failure.',
  },
  {
    question: 'Which image widths can I ask the optimizer for?',
    answer:
      'The device sizes 640, 750, 828, 1080, 1200, 1920, 2048 and 3840, and the image sizes 16, 32, 48, 64, 96, 128, 256 and 384. Any other width gets 400 Bad Request. GET /api/image-widths returns both lists.',
  },
  {
    question: 'How does a load balancer check that Courier is up?',
    answer:
      'With GET /api/health, which answers {"status":"ok"} and is never cached. It is under /api, so the request filter does not run for it.',
  },
  {
    question: 'How do I stop the server without dropping requests?',
    answer:
      'Send SIGTERM. Courier stops accepting connections, lets requests in flight finish and exits, within ten seconds at the most. A second signal exits at once.',
  },
]
