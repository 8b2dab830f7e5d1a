/** The operator's side of the system suite: JSON requests to an API instance with the suite's key. */

export interface Answer<A = any> {
  readonly status: number
  readonly body: A
}

export interface Operator {
  readonly baseUrl: string
  readonly request: <A = any>(method: string, path: string, body?: unknown) => Promise<Answer<A>>
  /** Fails unless the answer is 2xx. */
  readonly ok: <A = any>(method: string, path: string, body?: unknown) => Promise<A>
}

export const operator = (baseUrl: string, apiKey: string, timeoutMs = 30_000): Operator => {
  const request = async <A>(method: string, path: string, body?: unknown): Promise<Answer<A>> => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(body === undefined ? {} : { "content-type": "application/json" })
      },
      body: body === undefined ? null : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs)
    }).catch((error: unknown) => {
      // fetch says only "fetch failed"; why is in its cause (a reset, a refused connection).
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : ""
      throw new Error(`${method} ${baseUrl}${path}: ${String(error)}${cause}`, { cause: error })
    })
    return answerOf<A>(response)
  }
  const ok = async <A>(method: string, path: string, body?: unknown) => {
    const answer = await request<A>(method, path, body)
    if (answer.status >= 300) {
      // The status goes with the error, for a caller that counts the answers (databaseFailover).
      throw Object.assign(
        new Error(`${method} ${baseUrl}${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`),
        { status: answer.status }
      )
    }
    return answer.body
  }
  return { baseUrl, request, ok }
}

/** GET without credentials, as the public does. */
export const publicGet = async <A = any>(baseUrl: string, path: string, timeoutMs = 5_000): Promise<Answer<A>> => {
  const response = await fetch(`${baseUrl}${path}`, { signal: AbortSignal.timeout(timeoutMs) })
  return answerOf<A>(response)
}

/** The status and the body, parsed when it is JSON (kept as text otherwise: RSS, HTML; null when empty). */
const answerOf = async <A>(response: Response): Promise<Answer<A>> => {
  const text = await response.text()
  let parsed: unknown = text
  try {
    parsed = text.length > 0 ? JSON.parse(text) : null
  } catch {
    // not JSON: kept as text
  }
  return { status: response.status, body: parsed as A }
}
