/**
 * The dependency rules of docs/architecture.md, read from the source: folders never import each
 * other both ways, the probe reaches nothing of the service, observability sits below what it
 * observes, and SQL is written in persistence/ only.
 */
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, normalize } from "node:path"

import { describe, expect, it } from "@effect/vitest"
import ts from "typescript"

const root = join(import.meta.dirname, "..")

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : []
  })

const existing = new Set([...sourceFiles("src"), ...sourceFiles("probes")])

/** The project files a module imports, statically or with `import()`, by their paths from the root. */
const importsOf = (file: string): Array<string> =>
  ts.preProcessFile(readFileSync(join(root, file), "utf8"), true, true).importedFiles
    .map((imported) => imported.fileName)
    .filter((name) => name.startsWith("."))
    .flatMap((name) => {
      const target = normalize(join(dirname(file), name))
      const found = [target.replace(/\.js$/, ".ts"), target.replace(/\.js$/, ".tsx"), target]
        .find((candidate) => existing.has(candidate))
      return found === undefined ? [] : [found]
    })

const graph = new Map([...existing].map((file) => [file, importsOf(file)]))

/** Every project file `entry` reaches through its imports, itself included. */
const reachableFrom = (entry: string): Set<string> => {
  const seen = new Set<string>()
  const visit = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    for (const next of graph.get(file) ?? []) visit(next)
  }
  visit(entry)
  return seen
}

const folderOf = (file: string) => dirname(file)

describe("architecture", () => {
  it("no two folders import each other", () => {
    const edges = new Map<string, string>()
    for (const [file, imports] of graph) {
      for (const target of imports) {
        if (folderOf(file) !== folderOf(target)) {
          edges.set(`${folderOf(file)} -> ${folderOf(target)}`, `${file} -> ${target}`)
        }
      }
    }
    const both = [...edges.keys()].filter((edge) => {
      const [from, to] = edge.split(" -> ")
      return from! < to! && edges.has(`${to} -> ${from}`)
    }).map((edge) => {
      const [from, to] = edge.split(" -> ")
      return `${edges.get(edge)} and ${edges.get(`${to} -> ${from}`)}`
    })
    expect(both).toEqual([])
  })

  it("the probe reaches only domain/, queue/ and runtime/ of src/", () => {
    const outside = [...reachableFrom("probes/main.ts"), ...reachableFrom("probes/index.ts")]
      .filter((file) => file.startsWith("src/") && !/^src\/(domain|queue|runtime)\//.test(file))
    expect([...new Set(outside)]).toEqual([])
  })

  it("runtime/ and observability/ import nothing above them", () => {
    const below = {
      "src/runtime/": /^src\/(domain|runtime)\//,
      "src/observability/": /^src\/(domain|runtime|observability)\//
    }
    const upward = [...graph].flatMap(([file, imports]) =>
      Object.entries(below).flatMap(([folder, allowed]) =>
        file.startsWith(folder)
          ? imports.filter((target) => !allowed.test(target)).map((target) => `${file} -> ${target}`)
          : []
      )
    )
    expect(upward).toEqual([])
  })

  it("SQL is written in src/persistence/ only", () => {
    const statements = [...existing]
      .filter((file) => file.startsWith("src/") && !file.startsWith("src/persistence/"))
      // A tagged statement (sql`…`, plain`…`), sql.unsafe or a reserved connection's execute("…");
      // a name in backquotes in a comment is not one.
      .filter((file) => /(^|[^`\w])(sql|plain)`|\.unsafe\(|\.execute\("/m.test(readFileSync(join(root, file), "utf8")))
    expect(statements).toEqual([])
  })

  it("reads the real import graph", () => {
    // A path mistake above would make every rule pass on nothing.
    expect(graph.size).toBeGreaterThan(200)
    expect(graph.get("src/Roles.ts")?.length).toBeGreaterThan(10)
    expect(reachableFrom("probes/main.ts").has("src/queue/JobTransport.ts")).toBe(true)
  })
})
