/** Worker entry point. */
import { createApp } from "./app.ts";

export default createApp();
