import { recipeProperty } from "./property-support.js";

recipeProperty("recipe-leader-latch", [{ canary: "no-ephemeral-cleanup" }]);
