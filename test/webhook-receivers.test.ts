/**
 * Which URLs may receive webhooks (src/webhooks/receivers.ts): https only,
 * no IP literals, and, deployed, names whose every address is public; loopback
 * receivers locally only. DNS answers come from a stand-in resolver.
 */
import { describe, expect, it } from "vitest";
import { receiverProblem } from "../src/webhooks/receivers.ts";

/** A resolver answering from `answers` (name → A and AAAA addresses). */
function resolver(answers: Record<string, { A?: string[]; AAAA?: string[] }>) {
  return async (name: string, type: "A" | "AAAA") => {
    const found = answers[name];
    if (!found) return [];
    return found[type] ?? [];
  };
}

const deployed = (answers: Record<string, { A?: string[]; AAAA?: string[] }>) => ({
  localReceivers: false,
  resolve: resolver(answers),
});

describe("receivers", () => {
  it("allows an https name whose every address is public, where it is deployed", async () => {
    const rules = deployed({
      "hooks.lender.example": { A: ["93.184.216.34"], AAAA: ["2606:2800:220:1:248:1893:25c8:1946"] },
    });
    expect(await receiverProblem("https://hooks.lender.example/ucc", rules)).toBeNull();
    expect(await receiverProblem("https://hooks.lender.example:8443/ucc?x=1", rules)).toBeNull();
  });

  it("refuses a name with a private, loopback, link-local, metadata or other inner address, or none", async () => {
    const inner = [
      ["10.1.2.3"],
      ["172.20.0.1"],
      ["192.168.0.10"],
      ["127.0.0.1"],
      ["169.254.169.254"],
      ["100.64.0.1"],
      ["0.0.0.0"],
      ["224.0.0.1"],
      ["93.184.216.34", "10.0.0.1"],
    ];
    for (const A of inner) {
      const problem = await receiverProblem("https://sneaky.example/", deployed({ "sneaky.example": { A } }));
      expect(problem, A.join()).toMatch(/^its name resolves to .+, which is not a public address$/);
    }
    for (const AAAA of [
      ["::1"],
      ["fd00:ec2::254"],
      ["fe80::1"],
      ["::ffff:10.0.0.1"],
      ["64:ff9b::a00:1"],
      ["ff02::1"],
      // Local-use NAT64, site-local, 6to4 of a private IPv4 address, Teredo.
      ["64:ff9b:1::a00:1"],
      ["fec0::1"],
      ["2002:a00:1::1"],
      ["2002:a9fe:a9fe::1"],
      ["2001::1"],
    ]) {
      const problem = await receiverProblem("https://sneaky.example/", deployed({ "sneaky.example": { AAAA } }));
      expect(problem, AAAA.join()).toContain("which is not a public address");
    }
    // NAT64 and 6to4 of a public address are public.
    for (const AAAA of [["64:ff9b::808:808"], ["2002:808:808::1"]]) {
      expect(
        await receiverProblem("https://nat.example/", deployed({ "nat.example": { AAAA } })),
        AAAA.join(),
      ).toBeNull();
    }
    expect(await receiverProblem("https://nowhere.example/", deployed({}))).toBe("its name has no address");
    const failing = { localReceivers: false, resolve: async () => Promise.reject(new Error("DNS status 2")) };
    expect(await receiverProblem("https://flaky.example/", failing)).toBe(
      "its name could not be resolved (DNS status 2)",
    );
  });

  it("refuses other schemes, IP literals, credentials in the URL and, deployed, loopback", async () => {
    const rules = deployed({ "a.example": { A: ["93.184.216.34"] } });
    expect(await receiverProblem("ftp://a.example/x", rules)).toBe("must be https, not ftp");
    expect(await receiverProblem("http://a.example/x", rules)).toBe("must be https, not http");
    expect(await receiverProblem("https://93.184.216.34/x", rules)).toBe(
      "a host written as an IP address is not allowed; use its name",
    );
    expect(await receiverProblem("https://[2606:2800:220:1::1]/x", rules)).toContain("IP address");
    expect(await receiverProblem("https://0x7f.1/x", rules)).toBe("a loopback host is not allowed");
    expect(await receiverProblem("https://localhost/x", rules)).toBe("a loopback host is not allowed");
    expect(await receiverProblem("https://user:pw@a.example/x", rules)).toBe(
      "a user or password in the URL is not allowed",
    );
    expect(await receiverProblem("a.example/x", rules)).toBe("not an absolute URL");
  });

  it("allows http to loopback where local receivers are allowed, and nothing else over http", async () => {
    const local = { localReceivers: true };
    for (const url of [
      "http://127.0.0.1:8832/hook",
      "http://localhost:9000/",
      "http://[::1]:80/",
      "https://hooks.lender.example/",
    ]) {
      expect(await receiverProblem(url, local), url).toBeNull();
    }
    expect(await receiverProblem("http://10.0.0.8/hook", local)).toBe(
      "must be https (or http to a loopback address, locally)",
    );
    expect(await receiverProblem("https://10.0.0.8/hook", local)).toBe(
      "a host written as an IP address is not allowed; use its name",
    );
  });
});
