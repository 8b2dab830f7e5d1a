/**
 * The client address that per-client limits count by (subscription requests, failed sign-ins).
 * It is the TCP peer, unless the peer is a reverse proxy listed in `TRUST_PROXY`: then it is read
 * from `X-Forwarded-For` right to left, since each proxy appends the address that connected to
 * it. The first address that is not a trusted proxy is the client; entries left of it are
 * whatever the client sent and are never believed, so a client cannot choose its own address
 * (and with no proxy trusted the header is ignored altogether).
 */
import { Effect, Option } from "effect"
import { HttpMiddleware, HttpServerRequest } from "effect/http"

import type { AddressList } from "../domain/NetworkAddress.js"
import { normalizeAddress } from "../domain/NetworkAddress.js"

/** The reverse proxies whose `X-Forwarded-For` is believed (`TRUST_PROXY`). */
export type TrustedProxies = AddressList

/**
 * The client behind `peer`: walks `X-Forwarded-For` from the right while the address reached is
 * a trusted proxy. An entry that is not an IP address ends the walk at the proxy that wrote it.
 */
export const resolveClientAddress = (
  peer: string,
  forwardedFor: string | undefined,
  trusted: TrustedProxies
): string => {
  let client = Option.getOrElse(normalizeAddress(peer), () => peer)
  if (trusted.isEmpty || forwardedFor === undefined) return client
  const hops = forwardedFor.split(",")
  while (hops.length > 0 && trusted.includes(client)) {
    const next = normalizeAddress(hops.pop()!)
    if (Option.isNone(next)) break
    client = next.value
  }
  return client
}

/**
 * Middleware that sets the request's `remoteAddress` to the client address, so handlers read
 * `request.remoteAddress` whatever sits in front of the service.
 */
export const clientAddressMiddleware = (trusted: TrustedProxies) =>
  HttpMiddleware.make((app) =>
    trusted.isEmpty ?
      app :
      Effect.updateService(app, HttpServerRequest.HttpServerRequest, (request) =>
        Option.match(request.remoteAddress, {
          onNone: () => request,
          onSome: (peer) =>
            request.modify({
              remoteAddress: Option.some(resolveClientAddress(peer, request.headers["x-forwarded-for"], trusted))
            })
        }))
  )
