/**
 * A probe region name such as `eu-west`: what a probe agent serves (PROBE_REGION) and what a
 * monitor may be limited to. It names a Redis consumer group too, so it stays short and plain.
 * No imports: the probe agent reads it without the service's code.
 */
export const regionPattern = /^[a-z0-9][a-z0-9_-]{0,62}$/

/**
 * The region of push monitors' runs: the service itself records them (a push, or its absence).
 * Reserved: no probe serves it and no monitor lists it, so no probe can report a push run.
 */
export const pushRegion = "push"

/** A name a probe may serve and a monitor may list: the pattern, and not the reserved `push`. */
export const isProbeRegion = (name: string): boolean => regionPattern.test(name) && name !== pushRegion
