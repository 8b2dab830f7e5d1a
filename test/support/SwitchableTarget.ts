/**
 * A local HTTP target whose answer a test sets (`answer(503)`, then `answer(200)`): what a real
 * outage and recovery look like to a real check.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

import { Context, Effect, Layer } from "effect"

export class SwitchableTarget extends Context.Service<
  SwitchableTarget,
  { readonly url: string; readonly answer: (status: number) => void }
>()("test/SwitchableTarget") {}

export const SwitchableTargetLive = Layer.effect(
  SwitchableTarget,
  Effect.acquireRelease(
    Effect.promise(async () => {
      let status = 200
      const server = createServer((_req, res) => {
        res.statusCode = status
        res.end()
      })
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      return {
        server,
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
        answer: (s: number) => (status = s)
      }
    }),
    ({ server }) => Effect.promise(() => new Promise((resolve) => server.close(resolve)))
  )
)
