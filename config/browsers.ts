/**
 * Browsers the client build must run in. Source: product spec section 9 ("Targeted browsers").
 * Written in the form Vite's build.target takes.
 */
export const browserTargets = Object.freeze(['chrome64', 'edge79', 'firefox67', 'opera51', 'safari12'])
