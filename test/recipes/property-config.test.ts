import { recipeProperty } from "./property-support.js";

recipeProperty("recipe-config", [{ canary: "watch-not-fired" }]);
