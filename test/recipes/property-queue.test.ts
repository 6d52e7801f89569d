import { recipeProperty } from "./property-support.js";

recipeProperty("recipe-queue", [{ canary: "no-ephemeral-cleanup" }]);
