import { statusTitle } from '../config/status-titles.ts'
import { plainErrorDocument } from './render/error-documents.ts'

/** The API and everything under /_next (data, assets, images) fail in JSON; every other path gets an HTML page. */
export function answersInJson(url: string): boolean {
  return url === '/api' || url.startsWith('/api/') || url.startsWith('/api?') || url.startsWith('/_next/')
}

/** An error answer that costs no render, for moments the server must do no work (shedding load, draining). */
export interface PlainErrorAnswer {
  contentType: string
  body: string
}

const plainAnswers = new Map<string, PlainErrorAnswer>()

/**
 * The status-title table's answer without React: JSON `{ statusCode, code, error, message }` for the API and /_next,
 * a script-free HTML page otherwise. Built once per status, code and format.
 */
export function plainErrorAnswer(url: string, statusCode: number, code: string): PlainErrorAnswer {
  const json = answersInJson(url)
  const key = `${statusCode}:${code}:${json}`
  let answer = plainAnswers.get(key)
  if (!answer) {
    const title = statusTitle(statusCode)
    answer = json
      ? { contentType: 'application/json; charset=utf-8', body: JSON.stringify({ statusCode, code, error: title, message: title }) }
      : { contentType: 'text/html; charset=utf-8', body: plainErrorDocument(statusCode) }
    plainAnswers.set(key, answer)
  }
  return answer
}
