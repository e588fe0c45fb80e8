% Octave's linear algebra on fixed random matrices. Writes each case's
% results to the file named by the first argument, one line per matrix, and
% marks in Switchyard's trace (when SWITCHYARD_TRACE names a file) where each
% case starts, so that run_client.sh can tell which calls each case made.
1;

function mark_case(name)
  trace = getenv("SWITCHYARD_TRACE");
  if (! isempty(trace))
    f = fopen(trace, "a");
    fprintf(f, "case %s\n", name);
    fclose(f);
  end
end

function record(results, name, x)
  fprintf(results, "%s", name);
  fprintf(results, " %.17g", x(:));
  fprintf(results, "\n");
end

results = fopen(argv(){1}, "w");
rand("seed", 18);
A = rand(400, 60) - 0.5;
b = rand(400, 1) - 0.5;

mark_case("qr");
[Q, R] = qr(A, 0);
record(results, "qr.Q", Q);
record(results, "qr.R", R);

mark_case("solve");
record(results, "solve", A \ b);

mark_case("gram");
record(results, "gram", A' * A);

fclose(results);
