// RUN: tshape-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// tshape.architecture: what a model is beyond its sizes (docs/dialect.md,
// model::Architecture). A dictionary of the fields that differ from GPT-2's
// defaults; it round-trips, and the verifier rejects an unknown key, a
// value of the wrong kind and an unknown choice.

// CHECK-LABEL: func.func @llama
// CHECK-SAME: tshape.architecture = {linear_bias = false, norm = "rmsnorm", norm_eps = 9.9999999999999995E-7 : f64, positions = "rope", rotary_base = 5.000000e+05 : f64}
func.func @llama() attributes {tshape.architecture = {positions = "rope", rotary_base = 500000.0 : f64, norm = "rmsnorm", norm_eps = 1.0e-6 : f64, linear_bias = false}} {
  return
}

// -----

// An empty dictionary states GPT-2's architecture; integers are accepted
// where a number is expected.
// CHECK-LABEL: func.func @gpt2
// CHECK-SAME: tshape.architecture = {}
func.func @gpt2() attributes {tshape.architecture = {}} {
  return
}

// -----

// CHECK-LABEL: func.func @integer_base
func.func @integer_base() attributes {tshape.architecture = {rotary_base = 10000 : i64, mtp_layers = 1 : i64}} {
  return
}

// -----

// expected-error @+1 {{'tshape.architecture' must be a dictionary of architecture fields}}
func.func @not_a_dictionary() attributes {tshape.architecture = "rope"} {
  return
}

// -----

// expected-error-re @+1 {{tshape.architecture: unknown key 'rope' (known: positions, rotary_base, {{.*}})}}
func.func @unknown_key() attributes {tshape.architecture = {rope = true}} {
  return
}

// -----

// expected-error @+1 {{tshape.architecture: 'norm_eps' expects a non-negative number}}
func.func @wrong_kind() attributes {tshape.architecture = {norm_eps = "small"}} {
  return
}

// -----

// expected-error @+1 {{tshape.architecture: 'linear_bias' expects true or false}}
func.func @not_bool() attributes {tshape.architecture = {linear_bias = 1 : i64}} {
  return
}

// -----

// expected-error @+1 {{tshape.architecture: 'norm' is 'batchnorm', expected one of layernorm,rmsnorm}}
func.func @bad_choice() attributes {tshape.architecture = {norm = "batchnorm"}} {
  return
}

// -----

// expected-error @+1 {{tshape.architecture: 'mtp_layers' expects a non-negative integer}}
func.func @negative() attributes {tshape.architecture = {mtp_layers = -1 : i64}} {
  return
}
