/**
 * A layer of a service made of only the methods a test gives (the Effect examples'
 * `makeTestLayer`): calling any other one dies, naming it, so a test says exactly what it relies
 * on. For unit tests of a service's rules without PostgreSQL; the same rules are tested against
 * the real database as well.
 */
import { type Context, Effect, Layer } from "effect"

export const makeTestLayer = <I, S extends object>(service: Context.Key<I, S>) => (implemented: Partial<S>) =>
  Layer.succeed(service)(
    new Proxy(implemented, {
      get: (target, property) =>
        property in target || typeof property === "symbol"
          ? target[property as keyof typeof target]
          : () => Effect.die(`${service.key}.${property} is not implemented in this test`)
    }) as S
  )
