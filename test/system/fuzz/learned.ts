/**
 * What the answers taught a run, for the requests that follow: the cursors each list's `Link`
 * gave (to page on, and to alter), and entity tags: the last one answered for each path (for
 * `If-Match` and `If-None-Match`), and those known stale.
 *
 * A tag is known stale when a read of the same resource, sent after the read that gave it was
 * answered, gives another strong tag: the resource changed in between, and a representation
 * carrying its `updatedAt` does not come back. Only reads count (a write's answer may carry the
 * tag of something else than what its path names), and only strong tags (a gzipped answer's
 * weak tag names the same state). Requests overlap, so order is the run's own clock: a tick when
 * a request is sent, one when its answer is read.
 */
interface Read {
  readonly tag: string
  readonly answered: number
}

const KEPT = 16

const remember = <A>(map: Map<string, Array<A>>, key: string, value: A) =>
  map.set(key, [...(map.get(key) ?? []).slice(1 - KEPT), value])

export class Learned {
  private clock = 0
  private readonly cursors = new Map<string, Array<string>>()
  private readonly tags = new Map<string, string>()
  private readonly reads = new Map<string, Array<Read>>()
  private readonly stale = new Map<string, Array<string>>()

  /** The run's clock: a tick when a request is sent, another when its answer is read. */
  tick() {
    return ++this.clock
  }

  /** The cursor of a `Link: <…>; rel="next"` the operation answered. */
  cursor(operationId: string, cursor: string) {
    remember(this.cursors, operationId, cursor)
  }

  cursorsOf(operationId: string): ReadonlyArray<string> {
    return this.cursors.get(operationId) ?? []
  }

  /** Cursors other lists gave: a list must refuse them. */
  cursorsBesides(operationId: string): ReadonlyArray<string> {
    return [...this.cursors].flatMap(([other, cursors]) => (other === operationId ? [] : cursors))
  }

  /** An ETag answered for `path`: a read's, or the one a write answered for the resource it names. */
  entityTag(path: string, tag: string) {
    this.tags.set(path, tag)
  }

  /** An ETag a read of the resource at `path` answered; `sent` and `answered` are ticks of the clock. */
  read(path: string, tag: string, sent: number, answered: number) {
    this.entityTag(path, tag)
    if (tag.startsWith("W/")) return
    // A tag that comes back is no longer stale (whether it came back or its read was sent earlier).
    const known = new Set(this.staleEntityTagsOf(path).filter((stale) => stale !== tag))
    this.stale.set(path, [...known])
    const reads = this.reads.get(path) ?? []
    for (const earlier of reads) {
      if (earlier.answered < sent && earlier.tag !== tag && !known.has(earlier.tag)) {
        remember(this.stale, path, earlier.tag)
        known.add(earlier.tag)
      }
    }
    remember(this.reads, path, { tag, answered })
  }

  entityTagOf(path: string): string | undefined {
    return this.tags.get(path)
  }

  /** Tags the resource at `path` had and has no more. */
  staleEntityTagsOf(path: string): ReadonlyArray<string> {
    return this.stale.get(path) ?? []
  }
}
