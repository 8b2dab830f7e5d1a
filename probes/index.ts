/**
 * The `status-page-service/probe` entry: the probe agent for apps that embed it, and the Redis
 * transport it takes its jobs from. It reaches no database code (the same rule as the bundle,
 * scripts/buildProbe.ts).
 */
export { CheckJob, CheckResult, isMissed, MissedCheck, type ProbeReport } from "../src/domain/CheckJob.js"
export { ProbeHeartbeat } from "../src/domain/ProbeHeartbeat.js"
export { JobTransport, QueueError } from "../src/queue/JobTransport.js"
export * as RedisJobTransport from "../src/queue/redis/RedisJobTransport.js"
export { environment, OutboundDeny, QueueConfig } from "../src/runtime/Config.js"
export { outboundGuard } from "../src/runtime/OutboundGuard.js"
export * as ProbeAgent from "./ProbeAgent.js"
export { ProbeConfig } from "./ProbeConfig.js"
