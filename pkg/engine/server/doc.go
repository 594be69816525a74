// Package server is the gRPC EngineService: a thin adapter that translates
// between robota.v1 messages and the engine's Go types. It is the only engine
// package that imports gRPC or generated proto types.
//
// In this build no session RPC is implemented yet: every EngineService method
// answers codes.Unimplemented with a message naming the work that brings it,
// so clients can tell "not yet" from "broken".
package server
