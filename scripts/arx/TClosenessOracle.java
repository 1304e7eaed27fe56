import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.deidentifier.arx.ARXAnonymizer;
import org.deidentifier.arx.ARXConfiguration;
import org.deidentifier.arx.ARXLattice.ARXNode;
import org.deidentifier.arx.ARXResult;
import org.deidentifier.arx.AttributeType;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.DataHandle;
import org.deidentifier.arx.criteria.EqualDistanceTCloseness;
import org.deidentifier.arx.criteria.HierarchicalDistanceTCloseness;
import org.deidentifier.arx.criteria.KAnonymity;

/**
 * ARX 3.9.2 reference optima for t-closeness on Adult (hidekit's tests/fixtures/arx-tcloseness.json).
 * QIs: sex, age, race, marital-status, education, native-country, workclass (ARX's hierarchies);
 * sensitive: occupation (hierarchical distance uses its hierarchy); salary-class insensitive.
 * k = 5, ARX's default Loss metric, suppression limit 0 and 0.05, t in {0.15, 0.2, 0.3}.
 * Prints one JSON object per line.
 * Build: javac -cp '../shared/tools/arx/lib/*' -d /tmp/tco scripts/arx/TClosenessOracle.java
 * Run:   java -cp '../shared/tools/arx/lib/*:/tmp/tco' TClosenessOracle ../shared/data/adult/
 */
public class TClosenessOracle {
    static final String[] QIS = {"sex", "age", "race", "marital-status", "education", "native-country", "workclass"};

    public static void main(String[] args) throws Exception {
        String dir = args[0];
        for (String kind : new String[] {"hierarchical", "equal"}) {
            for (double t : new double[] {0.15, 0.2, 0.3}) {
                for (double s : new double[] {0.0, 0.05}) {
                    Data data = Data.create(dir + "adult.csv", StandardCharsets.UTF_8, ';');
                    for (String q : QIS) {
                        data.getDefinition().setAttributeType(q, Hierarchy.create(dir + "adult_hierarchy_" + q + ".csv", StandardCharsets.UTF_8, ';'));
                    }
                    data.getDefinition().setAttributeType("salary-class", AttributeType.INSENSITIVE_ATTRIBUTE);
                    Hierarchy occ = Hierarchy.create(dir + "adult_hierarchy_occupation.csv", StandardCharsets.UTF_8, ';');
                    data.getDefinition().setAttributeType("occupation", AttributeType.SENSITIVE_ATTRIBUTE);
                    ARXConfiguration c = ARXConfiguration.create();
                    c.addPrivacyModel(new KAnonymity(5));
                    if (kind.equals("hierarchical")) {
                        c.addPrivacyModel(new HierarchicalDistanceTCloseness("occupation", t, occ));
                    } else {
                        c.addPrivacyModel(new EqualDistanceTCloseness("occupation", t));
                    }
                    c.setSuppressionLimit(s);
                    ARXResult r = new ARXAnonymizer().anonymize(data, c);
                    ARXNode opt = r.getGlobalOptimum();
                    StringBuilder b = new StringBuilder();
                    b.append("{\"distance\": \"").append(kind).append("\", \"t\": ").append(t).append(", \"suppression\": ").append(s);
                    if (opt == null) {
                        b.append(", \"solution\": null}");
                    } else {
                        String[] order = opt.getQuasiIdentifyingAttributes();
                        int[] v = opt.getTransformation();
                        b.append(", \"transformation\": {");
                        for (int i = 0; i < order.length; i++) b.append(i > 0 ? ", " : "").append("\"").append(order[i]).append("\": ").append(v[i]);
                        b.append("}, \"information_loss\": ").append(opt.getLowestScore().toString());
                        DataHandle out = r.getOutput(opt, false);
                        b.append(", \"suppressed\": ").append(out.getStatistics().getEquivalenceClassStatistics().getNumberOfSuppressedRecords());
                        b.append("}");
                    }
                    System.out.println(b);
                }
            }
        }
    }
}
