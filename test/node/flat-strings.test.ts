/**
 * The strings our code makes for response bodies are sequential: V8's fast
 * JSON.stringify takes no cons or sliced string, and one anywhere sends the
 * whole body through the general serializer (src/domain/flat.ts). V8 tells
 * a string's representation only through a native, so a child Node with
 * --allow-natives-syntax prints each string's type.
 */
import { spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const url = (path: string) => pathToFileURL(path).href;

/** The V8 string type of each named expression, evaluated in a child Node that imports the project's modules. */
function typesOf(expressions: Record<string, string>): Record<string, string> {
  const script = `
    import { isoSeconds } from ${JSON.stringify(url("src/domain/time.ts"))};
    import { flat, joined } from ${JSON.stringify(url("src/domain/flat.ts"))};
    import { mapsUrl } from ${JSON.stringify(url("src/http/present.ts"))};
    import { encodeCursor } from ${JSON.stringify(url("src/http/cursor.ts"))};
    import { reportQuery } from ${JSON.stringify(url("src/http/params.ts"))};
    const print = new Function("s", "%DebugPrint(s)");
    const values = { ${Object.entries(expressions)
      .map(([name, expression]) => `${JSON.stringify(name)}: await (async () => ${expression})()`)
      .join(", ")} };
    // Each name through the same native as its value, so the two print in order.
    for (const [name, value] of Object.entries(values)) {
      print("@@" + name);
      print(value);
    }
  `;
  const run = spawnSync(process.execPath, ["--allow-natives-syntax", "--input-type=module", "-e", script], {
    encoding: "utf8",
  });
  expect(run.stderr).toBe("");
  const types: Record<string, string> = {};
  const prints = run.stdout.split("DebugPrint: ").slice(1);
  for (let i = 0; i + 1 < prints.length; i += 2) {
    const name = /@@(\w+)/.exec(prints[i] ?? "")?.[1] ?? `unnamed ${i}`;
    types[name] = /- type: (\w+)/.exec(prints[i + 1] ?? "")?.[1] ?? "unknown";
  }
  return types;
}

describe("strings written into response bodies", () => {
  it("are sequential where a template literal or a slice would not be", () => {
    const types = typesOf({
      // Controls: the detector sees a concatenation's and a slice's representation.
      template: "'2026-03-22' + 'T' + String(Date.now() % 10) + '0:00:00Z'",
      slice: "('x' + 'abcdefghijklmnopqrstuvwxyz'.repeat(2)).slice(1, 30)",
      timestamp: "isoSeconds(Date.UTC(2026, 2, 22, 21, 4, 27))",
      farTimestamp: "isoSeconds(Date.UTC(12026, 2, 22, 21, 4, 27))",
      mapSearch:
        "mapsUrl({ street1: '9649 County Road 12', city: 'Boston', state: 'MA', zip: '02116', country: 'US' })",
      cursor: "encodeCursor('changes', { p: { DB: 12345 } })",
      joined: "joined('2026-03-22', 'T21:04:27Z')",
      // A name as Hono hands it over, cut out of the URL, as the routes echo it.
      queryName: "reportQuery.parse({ name: ('x' + 'GraniteRanchHoldingsLLC').slice(1) }).name",
      flatSlice: "flat(('x' + 'abcdefghijklmnopqrstuvwxyz'.repeat(2)).slice(1, 30))",
    });
    expect(types.template).toMatch(/^CONS_/);
    expect(types.slice).toMatch(/^SLICED_/);
    for (const name of ["timestamp", "farTimestamp", "mapSearch", "cursor", "joined", "flatSlice", "queryName"]) {
      expect({ name, type: types[name] }).toEqual({ name, type: expect.stringMatching(/^SEQ_/) });
    }
  });
});
