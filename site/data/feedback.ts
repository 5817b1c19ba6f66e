/** Feedback a signed-in reader leaves on a guide, shown to them on their account page. */
import { siteStore, type Feedback } from './site-store.ts'

export type { Feedback }

export function leaveFeedback(author: string, guide: string, body: string): Promise<void> {
  return siteStore().leaveFeedback(author, guide, body)
}

export function feedbackOf(author: string): Promise<Feedback[]> {
  return siteStore().feedbackOf(author)
}
