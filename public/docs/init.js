// Starts Swagger UI on the service's own OpenAPI document (a file, not an
// inline script, so the page's Content-Security-Policy can forbid inline code).
SwaggerUIBundle({ url: "/openapi.json", dom_id: "#reference", deepLinking: true });
