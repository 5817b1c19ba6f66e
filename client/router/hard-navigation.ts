/**
 * Leaves the client router for a full page load of `target`: the server renders it afresh (a new deployment, an
 * error page, a page the router could not load in time). Never to the URL already shown: reloading it would repeat
 * whatever failed, possibly forever.
 */
export function hardNavigate(target: string, shown: string): void {
  if (target === shown) {
    console.error(new Error(`Courier: no full navigation to the page already shown (${target})`))
    return
  }
  window.location.assign(target)
}
