/**
 * Browsers the client build must run in. The targets, and how the build is held to them: docs/browsers.md.
 * Written in the form Vite's build.target takes.
 */
export const browserTargets = Object.freeze(['chrome64', 'edge79', 'firefox67', 'opera51', 'safari12'])
