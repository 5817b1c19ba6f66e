import { createContext } from 'react'

/**
 * The response's CSP nonce, given on the server only (the browser hides a nonce from the page, and needs none for
 * what hydration finds in place): for the elements of the app's own that carry it, the request-time data of a partly
 * prerendered page's holes (client/components/request-time.tsx).
 */
export const DocumentNonce = createContext<string | undefined>(undefined)
