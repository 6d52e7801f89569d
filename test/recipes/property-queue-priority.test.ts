import { recipeProperty } from "./property-support.js";

recipeProperty("recipe-queue-priority", [{ canary: "no-ephemeral-cleanup" }]);
