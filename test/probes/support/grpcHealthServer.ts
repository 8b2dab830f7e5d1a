/**
 * A real `@grpc/grpc-js` server on loopback serving the standard health service
 * (grpc.health.v1.Health/Check), plaintext or TLS, or no service at all: the `grpc` check's
 * target in its tests. Its health by service name: "" (the server) and `shop.Cart` SERVING,
 * `shop.Payments` NOT_SERVING, any other NOT_FOUND, as the standard asks.
 */
import * as grpc from "@grpc/grpc-js"
import { Effect } from "effect"

import { decodeHealthResponse, encodeHealthRequest, healthCheckPath } from "../../../probes/checks/grpc.js"
import type { Pem } from "../../support/Certificates.js"

/** HealthCheckResponse: status as field 1. */
const encodeResponse = ({ status }: { readonly status: number }) => Buffer.from([0x08, status])

/** The server's health by service name ("": the server's own); a name not listed is NOT_FOUND, as the standard asks. */
const statuses: Record<string, number> = { "": 1, "shop.Cart": 1, "shop.Payments": 2 }

const healthService: grpc.ServiceDefinition = {
  Check: {
    path: healthCheckPath,
    requestStream: false,
    responseStream: false,
    requestSerialize: encodeHealthRequest,
    requestDeserialize: (bytes: Buffer) => {
      // HealthCheckRequest: field 1, the service name (the check's own encoder, read back).
      if (bytes.length === 0) return { service: "" }
      let at = 1
      let length = 0
      for (let shift = 0;; shift += 7) {
        const byte = bytes[at++]!
        length |= (byte & 0x7f) << shift
        if ((byte & 0x80) === 0) break
      }
      return { service: bytes.subarray(at, at + length).toString("utf8") }
    },
    responseSerialize: encodeResponse,
    responseDeserialize: decodeHealthResponse
  }
}

export const serve = (options: { readonly health: boolean; readonly tls?: Pem }) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const server = new grpc.Server()
      if (options.health) {
        server.addService(healthService, {
          Check: (call: grpc.ServerUnaryCall<{ service: string }, unknown>, callback: grpc.sendUnaryData<unknown>) => {
            const status = statuses[call.request.service]
            if (status === undefined) callback({ code: grpc.status.NOT_FOUND, details: "unknown service" })
            else callback(null, { status })
          }
        })
      }
      const credentials = options.tls === undefined
        ? grpc.ServerCredentials.createInsecure()
        : grpc.ServerCredentials.createSsl(null, [{
          private_key: Buffer.from(options.tls.key),
          cert_chain: Buffer.from(options.tls.cert)
        }])
      const port = await new Promise<number>((resolve, reject) =>
        server.bindAsync("127.0.0.1:0", credentials, (error, port) => error === null ? resolve(port) : reject(error))
      )
      return { server, port }
    }),
    ({ server }) => Effect.sync(() => server.forceShutdown())
  )
