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
});
