/** Titles of the generic error page. docs/errors.md says where each is shown. */
export const statusTitles: Readonly<Record<number, string>> = Object.freeze({
  400: 'Bad Request',
  /** A request refused for what it is: from another site's page, a site step's denial. */
  403: 'Forbidden',
  404: 'This page could not be found',
  405: 'Method Not Allowed',
  500: 'Internal Server Error',
})

/** The title of every status the table does not name (the "any other" row of docs/errors.md). */
export const fallbackStatusTitle = 'An unexpected error has occurred'

export function statusTitle(statusCode: number): string {
  return statusTitles[statusCode] ?? fallbackStatusTitle
}
