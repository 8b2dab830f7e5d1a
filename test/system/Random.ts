/** A seeded pseudo-random source (mulberry32), so a run's choices can be replayed from its seed. */
export interface Random {
  readonly seed: number
  /** In [0, 1). */
  readonly next: () => number
  readonly int: (below: number) => number
  readonly between: (min: number, max: number) => number
  readonly chance: (probability: number) => boolean
  readonly pick: <A>(items: ReadonlyArray<A>) => A
  /** Each item kept with `probability`, in order. */
  readonly subset: <A>(items: ReadonlyArray<A>, probability: number) => Array<A>
}

export const seededRandom = (seed: number): Random => {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
  const int = (below: number) => Math.floor(next() * below)
  return {
    seed,
    next,
    int,
    between: (min, max) => min + next() * (max - min),
    chance: (probability) => next() < probability,
    pick: (items) => items[int(items.length)]!,
    subset: (items, probability) => items.filter(() => next() < probability)
  }
}
