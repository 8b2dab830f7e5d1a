/**
 * Preloaded into each probe agent of the system suite (`NODE_OPTIONS=--import …`, see TestBed.ts):
 * its connections to the monitors' target leave from a loopback address of its own
 * (SYSTEM_PROBE_SOURCE_ADDRESS), as probes on machines of their own would. The target's request
 * log then tells which probe, and so which region, made each check, without asking the system.
 * Only the source address of connections to SYSTEM_TARGET_PORT changes; nothing else the probe does.
 * Plain JavaScript: it loads before tsx.
 */
import net from "node:net"

const address = process.env.SYSTEM_PROBE_SOURCE_ADDRESS
const targetPort = Number(process.env.SYSTEM_TARGET_PORT)

if (address !== undefined && address !== "" && Number.isInteger(targetPort)) {
  const connect = net.Socket.prototype.connect
  net.Socket.prototype.connect = function(...args) {
    // `net.createConnection` passes its normalized arguments ([options, callback]) as one array.
    const options = Array.isArray(args[0]) ? args[0][0] : args[0]
    if (
      typeof options === "object" && options !== null && Number(options.port) === targetPort &&
      options.localAddress === undefined
    ) {
      options.localAddress = address
    }
    return connect.apply(this, args)
  }
}
