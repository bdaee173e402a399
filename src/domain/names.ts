/**
 * Name match keys: the API's exact-name, secured-party and similar-name
 * rules. The implementation is the typed client's (client/src/names.ts), so
 * the client's watch() matches names exactly as the server does.
 */
import type { PartyType as ClientPartyType } from "../../client/src/names.ts";
import type { PartyType } from "./kinds.ts";

export * from "../../client/src/names.ts";

// The client's party kinds are the schema's.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameKinds: Same<PartyType, ClientPartyType> = true;
void sameKinds;
