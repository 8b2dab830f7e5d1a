/**
 * The full stack (`TestStack`: HTTP server, API, dashboard, fresh database) on a real loopback
 * port and real time, for a browser to visit. `run` executes effects against it with the
 * suite's API key (the typed `ApiClient` works inside). `startedAt` is no later than any clock
 * reading of the stack: what a page dates lies between it and now.
 */
import { Effect, ManagedRuntime } from "effect"
import { HttpServer } from "effect/http"

import { LiveTestServer } from "./TestServer.js"

export const startLiveStack = async (variables: Record<string, string> = {}) => {
  const startedAt = Date.now()
  const runtime = ManagedRuntime.make(LiveTestServer(variables))
  const address = await runtime.runPromise(Effect.map(HttpServer.HttpServer, (server) => server.address))
  if (address._tag === "UnixPathAddress") throw new Error("the test server is not on TCP")
  return {
    /** `localhost` is a secure context for Chromium, so the `Secure` session cookie is kept over http. */
    baseUrl: `http://localhost:${address.port}`,
    startedAt,
    run: runtime.runPromise,
    dispose: () => runtime.dispose()
  }
}
