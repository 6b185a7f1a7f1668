#pragma once
// Nothing to call: this target only supplies symbols zbar's archive refers to (CZBarShim.c).
