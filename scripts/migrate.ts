/**
 * Applies the migrations to every shard (wrangler.toml's D1 databases named
 * by SHARD_STATES, and DB), after checking the shard layout:
 *
 *   npm run db:migrate                          # local state
 *   node scripts/migrate.ts --remote --env production   # npm run deploy does this
 *   node scripts/migrate.ts --check [--env preview]     # the layout only
 */
import { commandLine, usageError } from "./commandLine.ts";
import { migrateAll, shardConfig } from "./shardConfig.ts";

const USAGE = "usage: node scripts/migrate.ts [--remote --env production|preview] [--persist-to DIR] [--check]";
const { values } = commandLine(USAGE, {
  options: {
    remote: { type: "boolean" },
    env: { type: "string" },
    "persist-to": { type: "string" },
    check: { type: "boolean" },
  },
});
if (values.remote && !values.env) usageError(USAGE, "--remote needs --env");
try {
  const config = await shardConfig(values.env);
  const where = values.env ? `env ${values.env}` : "local";
  console.log(`${config.databases.length} shard${config.databases.length === 1 ? "" : "s"} (${where}):`);
  for (const shard of config.databases) {
    console.log(`  ${shard.binding} (${shard.databaseName}): ${shard.states?.join(", ") ?? "every state not named"}`);
  }
  if (!values.check) {
    const target = values.remote
      ? { remote: true, env: values.env }
      : { remote: false, ...(values["persist-to"] ? { persistTo: values["persist-to"] } : {}) };
    await migrateAll(config, target, (line) => console.log(line));
  }
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
