import { KeptDocumentSlot } from './document-cache.ts'

/**
 * The document of each kept page version (a `static` page instance's), rendered once on its first HTML request
 * (src/render/renderer.ts). Keyed by the frozen version (src/pages/page-version.ts), so a version replaced by its
 * regeneration takes its document with it and the new one renders afresh.
 */
export class PageDocuments {
  readonly #slots = new WeakMap<object, KeptDocumentSlot>()

  /** The slot the document of `version` is kept in. */
  slotOf(version: object): KeptDocumentSlot {
    let slot = this.#slots.get(version)
    if (!slot) {
      slot = new KeptDocumentSlot()
      this.#slots.set(version, slot)
    }
    return slot
  }
}
