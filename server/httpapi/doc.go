// Package httpapi is the HTTP face of loci's HTTP companion: seed 001's
// EverOS API (POST /api/v1/memory/add, /flush, /search, /get) with its
// envelopes, validation messages, filter DSL, timestamps and scope
// isolation; the operational endpoints GET /metrics (Prometheus text) and
// GET /events (server-sent change events); and, with LOCI_ENV=dev,
// /openapi.json and a /docs page.
//
// It is a thin adapter over package palace: sessions, extraction, search
// and storage live there. It must never import package server (server
// imports it and mounts it beside MCP over HTTP) nor cmd.
package httpapi
