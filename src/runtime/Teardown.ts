/**
 * How the service's and the probe's processes end. Stopped by SIGTERM or SIGINT once their work in
 * flight is done, they exit with 0, as a clean stop should tell an orchestrator; effect 4's default
 * answers 130 for the signal. A failure still exits with effect's code for it (1).
 */
import { Cause, Exit, Runtime } from "effect"

export const teardown: Runtime.Teardown = (exit, onExit) =>
  Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)
