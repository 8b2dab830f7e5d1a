/**
 * The dashboard's only way to the server: the typed client derived from the API declaration
 * (`src/api/Api.ts`) over the browser's fetch. The session cookie rides along (same origin),
 * so no endpoint string is written here and the dashboard cannot drift from the API.
 */
import { Effect, Exit, ManagedRuntime } from "effect"
import { FetchHttpClient } from "effect/http"
import { HttpApiClient } from "effect/http-api"

import { Api } from "../../../../api/Api.js"
import { PreconditionsClient } from "../../../../client/IfMatch.js"
import { describeFailure, type Failure } from "./failure.js"

// Writes made under `withIfMatch` send the ETag they were read with (ui/resources.tsx).
const makeClient = HttpApiClient.make(Api).pipe(Effect.provide(PreconditionsClient))
export type ApiClient = Effect.Success<typeof makeClient>

const runtime = ManagedRuntime.make(FetchHttpClient.layer)
const client = runtime.runPromise(makeClient)

export type Outcome<A> = { readonly ok: true; readonly value: A } | { readonly ok: false; readonly failure: Failure }

const signedOutListeners = new Set<() => void>()

/** Called whenever the API answers 401: the session has ended (expired, signed out elsewhere). */
export const onSignedOut = (listener: () => void): () => void => {
  signedOutListeners.add(listener)
  return () => signedOutListeners.delete(listener)
}

/** Says the session has ended without asking the server (the user ended this very session). */
export const endSession = () => {
  for (const listener of signedOutListeners) listener()
}

/** Runs one request through the typed client; failures come back described for people. */
export const call = async <A, E>(request: (api: ApiClient) => Effect.Effect<A, E>): Promise<Outcome<A>> => {
  const exit = await runtime.runPromiseExit(Effect.flatMap(Effect.promise(() => client), request))
  if (Exit.isSuccess(exit)) return { ok: true, value: exit.value }
  const failure = describeFailure(exit.cause)
  if (failure.kind === "unauthorized") endSession()
  return { ok: false, failure }
}
