import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";

describe("the OpenAPI document", () => {
  it("is valid OpenAPI 3.1", async () => {
    const res = await createApp().request("/openapi.json");
    expect(res.status).toBe(200);
    const document = await res.json();
    const result = await new Validator().validate(document as Parameters<Validator["validate"]>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect((document as { openapi: string }).openapi).toBe("3.1.0");
  });

  it("sends its readers nowhere they cannot follow: no description names a file of the repository", async () => {
    const document = await (await createApp().request("/openapi.json")).json();
    const texts: string[] = [];
    const walk = (value: unknown): void => {
      if (typeof value === "string") texts.push(value);
      else if (value && typeof value === "object") for (const inner of Object.values(value)) walk(inner);
    };
    walk(document);
    const repositoryPath = /\b(?:docs|bench|src|scripts|test|client)\/[\w./-]+|\b[\w-]+\.md\b/;
    expect(texts.filter((text) => repositoryPath.test(text))).toEqual([]);
  });
});
