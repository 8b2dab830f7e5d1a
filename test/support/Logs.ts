/**
 * The log set-ups the tests make, as layers: v4 keeps loggers, the minimum level and log
 * annotations in the context (`Logger.CurrentLoggers`, `References.MinimumLogLevel`,
 * `References.CurrentLogAnnotations`), so a layer that sets one reaches the layers it is
 * provided to and, merged into an `it.layer` stack, the suite's tests.
 */
import { Effect, Layer, Logger, type LogLevel, References } from "effect"

/** Every logger in place stays except the default (console) one, which `logger` replaces. */
export const replaceDefaultLogger = (logger: Logger.Logger<unknown, unknown>): Layer.Layer<never> =>
  Layer.effect(
    Logger.CurrentLoggers,
    Effect.map(Logger.CurrentLoggers, (loggers) => {
      const kept = new Set([...loggers].filter((current) => current !== Logger.defaultLogger))
      return kept.add(logger)
    })
  )

/** Every logger in place stays except the default (console) one: nothing is printed. */
export const removeDefaultLogger: Layer.Layer<never> = Layer.effect(
  Logger.CurrentLoggers,
  Effect.map(Logger.CurrentLoggers, (loggers) => new Set([...loggers].filter((l) => l !== Logger.defaultLogger)))
)

/** `logger` beside the loggers in place. */
export const addLogger = (logger: Logger.Logger<unknown, unknown>): Layer.Layer<never> =>
  Logger.layer([logger], { mergeWithExisting: true })

/** Logs below `level` are dropped ("None": all of them). */
export const minimumLogLevel = (level: LogLevel.LogLevel): Layer.Layer<never> =>
  Layer.succeed(References.MinimumLogLevel, level)

/** The annotations of the fiber that logged (`Effect.annotateLogs`), for a `Logger.make` callback. */
export const logAnnotations = (options: Logger.Options<unknown>): Readonly<Record<string, unknown>> =>
  options.fiber.getRef(References.CurrentLogAnnotations)
