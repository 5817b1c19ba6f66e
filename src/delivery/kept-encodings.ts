import type { ContentCoding } from '../compression/negotiate.ts'

/**
 * The encodings of bodies kept for the deployment (a static page version's data), each compressed once per coding
 * on first use (src/delivery/send.ts `sendKeptBody`). Keyed by the frozen object the body belongs to, so a version
 * replaced by its regeneration takes its encodings with it.
 */
export class KeptEncodings {
  readonly #encodings = new WeakMap<object, Map<ContentCoding, Buffer>>()

  /** The encodings of the body that belongs to `owner`, made so far. */
  of(owner: object): Map<ContentCoding, Buffer> {
    let encodings = this.#encodings.get(owner)
    if (!encodings) {
      encodings = new Map()
      this.#encodings.set(owner, encodings)
    }
    return encodings
  }
}
