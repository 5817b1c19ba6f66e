/** The example site's FAQ. Server-only: the page receives it as data. */
export interface FaqEntry {
  question: string
  answer: string
}

export const faq: readonly FaqEntry[] = [
  {
    question: 'How do I start Courier?',
    answer:
      'Run npm install && npm start. The start script builds the client when there is no build yet or a source is newer than the build, then serves the site on port 3000.',
  },
  {
    question: 'How do I run the tests?',
    answer:
      'Run npm test. It type-checks the project, builds it, runs the server tests through fastify.inject and real sockets, and then the browser suite in Chromium when /usr/bin/chromium is installed.',
  },
  {
    question: 'Which environment variables does it read?',
    answer:
      'PORT (default 3000), HOST (default 0.0.0.0), LOG_LEVEL (default info), DEPLOYMENT_ID, TRUST_PROXY (default false), HSTS, SITE_URL and DIST_DIR. They are validated once at start-up, and a bad value stops the server with a message naming the variable.',
  },
  {
    question: 'Why is /faq excluded from the request filter?',
    answer:
      'Because the product specification lists it among the exclusions, with or without a trailing slash. This page is therefore served without the site policy: no nonce and no site steps.',
  },
  {
    question: 'A visitor sent me a digest. How do I find the error?',
    answer:
      'Search the logs for it. The digest shown on the error screen stands in the error line of that request, next to the request id, the full message and the stack.',
  },
  {
    question: 'What happens when a browser still runs an old deployment?',
    answer:
      'Its page-data requests carry the old deployment id, the server answers 409, and the client falls back to a full page navigation, which loads the current deployment.',
  },
  {
    question: 'Why do asset URLs end in ?dpl=…?',
    answer:
      'The query is the deployment id. It keeps a browser from mixing files of two deployments and makes every chunk load under exactly one URL.',
  },
  {
    question: 'Which browsers are supported?',
    answer: 'Chrome 64, Edge 79, Firefox 67, Opera 51 and Safari 12 and everything newer. The build is checked for syntax those browsers cannot parse.',
  },
  {
    question: 'Is anything loaded from another origin?',
    answer: 'No. Scripts, styles and the Inter font are all served by Courier itself.',
  },
  {
    question: 'How do I stop the server without dropping requests?',
    answer:
      'Send SIGTERM. Courier stops accepting connections, lets requests in flight finish and exits, within ten seconds at the most. A second signal exits at once.',
  },
]
