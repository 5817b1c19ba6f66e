/** Feedback a signed-in reader leaves on a guide, shown to them on their account page. */
import { statement } from './site-database.ts'

export interface Feedback {
  id: number
  guide: string
  body: string
  createdAt: string
}

/** The most feedback an account page shows (the newest first). */
export const feedbackShown = 50

export function leaveFeedback(author: string, guide: string, body: string): void {
  const insert = statement('INSERT INTO feedback (author, guide, body, created_at) VALUES (?, ?, ?, ?)')
  insert.run(author, guide, body, Date.now())
}

export function feedbackOf(author: string): Feedback[] {
  const select = statement('SELECT id, guide, body, created_at FROM feedback WHERE author = ? ORDER BY id DESC LIMIT ?')
  return select.all(author, feedbackShown).map((row) => ({
    id: Number(row.id),
    guide: String(row.guide),
    body: String(row.body),
    createdAt: new Date(Number(row.created_at)).toISOString(),
  }))
}
